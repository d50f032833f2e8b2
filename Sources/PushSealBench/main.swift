// `make bench`: PushSeal's speed and memory, as ratios against what they are judged by,
// measured in one run on one machine. It prints a table and writes bench/results.json.
// Benchmarks are not tests: targets are reported, never enforced.
import PushSealCore
import PushSealTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

#if canImport(CNGHTTP2) && canImport(CLibSSL)
    // The bench starts itself as its fast mock APNs (FastMockAPNsProcess).
    if CommandLine.arguments.dropFirst().first == FastMockAPNsProcess.command {
        exit(FastMockAPNs.main(CommandLine.arguments.dropFirst(2)))
    }
#endif

let options = BenchOptions(CommandLine.arguments.dropFirst())
guard let payloadText = readFile(options.payload),
    let payload = try? JSONParser.parse(payloadText).objectValue
else {
    printError("bench: cannot read the payload \(options.payload)\n")
    exit(2)
}
print(
    "PushSeal bench — payload \(options.payload) (\(JSONWriter.bytes(.object(payload)).count) bytes), "
        + "crypto: \(cryptoBackendName)")

let setups: [SuiteBench] = [
    SuiteBench(name: "x25519-base", suite: .x25519, authenticated: false),
    SuiteBench(name: "x25519-auth", suite: .x25519, authenticated: true),
    SuiteBench(name: "p256-base", suite: .p256, authenticated: false),
    SuiteBench(name: "p256-auth", suite: .p256, authenticated: true),
    SuiteBench(name: "xchacha-base", suite: .xChaCha, authenticated: false),
]

if let profile = options.profile {
    // Under `valgrind --tool=callgrind`: one piece of work, nothing else.
    let choices = try setups.flatMap { setup -> [(String, () throws -> Void)] in
        let work = try setup.work(payload: payload)
        return [
            ("\(setup.name)-seal", work.seal), ("\(setup.name)-seal-floor", work.sealFloor),
            ("\(setup.name)-open", work.open), ("\(setup.name)-open-floor", work.openFloor),
        ]
    }
    let webPush = try WebPushBench.work(payload: payload)
    let webPushChoices: [(String, () throws -> Void)] = [
        ("webpush-seal", webPush.seal), ("webpush-seal-floor", webPush.sealFloor), ("webpush-open", webPush.open),
        ("webpush-open-floor", webPush.openFloor),
    ]
    let payloadBytes = JSONWriter.bytes(.object(payload))
    let json: [(String, () throws -> Void)] = [
        ("json-parse", { _ = try JSONParser.parse(payloadBytes) }),
        ("json-read", { _ = PrimitiveCosts.readAll(try JSONParser.parse(payloadBytes)) }),
        ("json-write", { _ = JSONWriter.bytes(.object(payload)) }),
    ]
    let all = choices + webPushChoices + json
    guard let (_, work) = all.first(where: { $0.0 == profile }) else {
        printError("bench: --profile takes one of \(all.map(\.0).joined(separator: ", "))\n")
        exit(2)
    }
    for _ in 0..<options.profileRounds { try work() }
    exit(0)
}

if options.sendOnly {
    guard let send = SendBench.run(cli: options.cli, python: options.python, payload: payload) else {
        printError("bench: the mock APNs could not be started\n")
        exit(1)
    }
    let report = Report(
        payloadBytes: JSONWriter.bytes(.object(payload)).count, suites: [], python: [:], batch: nil, decrypt: nil,
        send: send, gateway: [], media: nil, pinnedCore: false)
    print(report.sendLines(send).joined(separator: "\n"))
    report.write(to: options.output)
    print("results written to \(options.output)")
    exit(0)
}

if options.receiptsOnly {
    guard let receipts = ReceiptBench.run(cli: options.cli, gateway: options.gateway, payload: payload) else {
        printError("bench: receipts could not be measured\n")
        exit(1)
    }
    var report = Report(
        payloadBytes: JSONWriter.bytes(.object(payload)).count, suites: [], python: [:], batch: nil, decrypt: nil,
        send: nil, gateway: [], media: nil, pinnedCore: false)
    report.receipts = receipts
    print(report.receiptLines(receipts).joined(separator: "\n"))
    report.write(to: options.output)
    print("results written to \(options.output)")
    exit(0)
}

if options.fetchOnly {
    guard let fetched = FetchBench.run(cli: options.cli, python: options.python, payload: payload) else {
        printError("bench: the fetched push could not be measured (media_server.py did not start?)\n")
        exit(1)
    }
    var report = Report(
        payloadBytes: JSONWriter.bytes(.object(payload)).count, suites: [], python: [:], batch: nil, decrypt: nil,
        send: nil, gateway: [], media: nil, pinnedCore: false)
    report.fetched = fetched
    print(report.fetchedLine(fetched))
    report.write(to: options.output)
    print("results written to \(options.output)")
    exit(0)
}

if options.gatewayInstructions {
    guard let counts = GatewayInstructions.run(cli: options.cli, gateway: options.gateway, payload: payload) else {
        printError("bench: the gateway could not be counted under callgrind (is valgrind installed?)\n")
        exit(1)
    }
    print("gateway instructions (callgrind, SQLite, one instance, APNs at once):")
    print(counts.flatMap(\.lines).joined(separator: "\n"))
    let json = JSONObject([("gateway_instructions", .object(JSONObject(counts.map { ($0.phase, $0.json) })))])
    writeFile(options.output, JSONWriter.bytes(.object(json)) + [0x0A])
    print("results written to \(options.output)")
    exit(0)
}

if options.gatewayOnly {
    var gateway: [GatewayBench.Result] = []
    let server = try? PostgresTestServer(durable: true)
    // SQLite, then PostgreSQL with one instance and with three, as `make bench` measures them.
    let setups = [(nil, 1), (try server?.createDatabase(), 1), (try server?.createDatabase(), 3)]
    for (database, instances) in setups where instances == 1 || database != nil {
        if let result = GatewayBench.run(
            cli: options.cli, gateway: options.gateway, python: options.python, payload: payload, database: database,
            instances: instances, databaseServer: database == nil ? nil : server?.postmaster, apnsDelayMilliseconds: 0)
        {
            gateway.append(result)
        }
    }
    // Both kinds of device at a realistic round trip.
    if let result = GatewayBench.run(
        cli: options.cli, gateway: options.gateway, python: options.python, payload: payload,
        apnsDelayMilliseconds: SendBench.delayMilliseconds, webPushMix: true)
    {
        gateway.append(result)
    }
    let report = Report(
        payloadBytes: JSONWriter.bytes(.object(payload)).count, suites: [], python: [:], batch: nil, decrypt: nil,
        send: nil, gateway: gateway, media: nil, pinnedCore: false)
    print(report.gatewayLines.joined(separator: "\n"))
    report.write(to: options.output)
    print("results written to \(options.output)")
    exit(gateway.count == setups.count + 1 ? 0 : 1)
}

// The in-process measurements run pinned to one core; the processes started later are not.
let (pinnedCore, suiteResults) = CorePinning.onOneCore { pinned in
    print("primitive costs here (median):")
    for (name, microseconds) in (try? PrimitiveCosts.measure(payload: payload)) ?? [] {
        print("  \(name): \(Double(Int(microseconds * 10)) / 10) µs")
    }
    var results: [SuiteBench.Result] = []
    for setup in setups {
        do {
            results.append(try setup.run(payload: payload))
        } catch {
            printError("bench: \(setup.name) failed: \(error)\n")
            exit(1)
        }
    }
    do {
        results.append(try WebPushBench.run(payload: payload))
    } catch {
        printError("bench: \(WebPushBench.name) failed: \(error)\n")
        exit(1)
    }
    return (pinned, results)
}

let python = options.suitesOnly ? [:] : PythonPeerBench.run(python: options.python, payloadPath: options.payload)
let batch = options.suitesOnly ? nil : CLIBench.batch(cli: options.cli, payload: payload, lines: options.batchLines)
let decrypt = CLIBench.decryptProcess(cli: options.cli, payload: payload)
let send = options.suitesOnly ? nil : SendBench.run(cli: options.cli, python: options.python, payload: payload)
// The gateway on SQLite, then on a throwaway PostgreSQL (as the tests start it) with one and three instances.
var gateway: [GatewayBench.Result] = []
if !options.suitesOnly {
    func measure(
        _ database: String?, _ instances: Int, on server: PostgresTestServer? = nil, apnsDelayMilliseconds: Int = 0,
        webPushMix: Bool = false
    ) {
        if let result = GatewayBench.run(
            cli: options.cli, gateway: options.gateway, python: options.python, payload: payload, database: database,
            instances: instances, databaseServer: server?.postmaster, apnsDelayMilliseconds: apnsDelayMilliseconds,
            webPushMix: webPushMix)
        {
            gateway.append(result)
        } else {
            printError(
                "bench: the gateway (\(database == nil ? "sqlite" : "postgres") ×\(instances)) could not be measured\n")
        }
    }
    measure(nil, 1)
    measure(nil, 1, apnsDelayMilliseconds: SendBench.delayMilliseconds, webPushMix: true)
    do {
        let server = try PostgresTestServer(durable: true)
        measure(try server.createDatabase(), 1, on: server)
        measure(try server.createDatabase(), 3, on: server)
    } catch {
        printError("bench: PostgreSQL could not be started: \(error)\n")
    }
}
let media: MediaBench.Result?
do {
    media = try MediaBench.run(cli: options.cli, python: options.python)
} catch {
    printError("bench: media failed: \(error)\n")
    media = nil
}

var report = Report(
    payloadBytes: JSONWriter.bytes(.object(payload)).count, suites: suiteResults, python: python, batch: batch,
    decrypt: decrypt, send: send, gateway: gateway, media: media, pinnedCore: pinnedCore)
report.fetched = FetchBench.run(cli: options.cli, python: options.python, payload: payload)
if report.fetched == nil { printError("bench: the fetched push could not be measured\n") }
if !options.suitesOnly {
    report.receipts = ReceiptBench.run(cli: options.cli, gateway: options.gateway, payload: payload)
    if report.receipts == nil { printError("bench: receipts could not be measured\n") }
}
print(report.table)
report.write(to: options.output)
print("results written to \(options.output)")
