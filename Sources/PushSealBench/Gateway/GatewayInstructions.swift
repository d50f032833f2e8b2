import PushSealCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The gateway's instructions per push, counted by callgrind (`make bench-gateway-instructions`):
/// the figure that tells two builds apart on a machine whose time moves by a quarter between
/// runs.
///
/// One instance on SQLite runs under `valgrind --tool=callgrind`, delivering to
/// ``FastMockAPNs`` at once. After a warm-up, the counters are zeroed, a phase's pushes are
/// posted (16 at a time) and delivered, and the counts are dumped: every instruction of the
/// gateway's process in between, divided by the pushes, in all and by where they went (each
/// part with what it called; the parts overlap where one calls another). The one-app gateway
/// counts one-device and ten-device pushes; then a gateway of three apps, each with its own
/// `.p8` key and tokens, counts one-device pushes posted to the three in turn.
enum GatewayInstructions {
    /// One-device pushes, then ten-device pushes (as many deliveries).
    static let oneDevicePushes = 1_000
    static let tenDevicePushes = 100
    /// The apps of the three-app gateway, and the one-device pushes posted to each, in rounds of
    /// ``pushesPerRound`` per app.
    static let apps = ["shop", "news", "staging"]
    static let pushesPerApp = 333
    static let pushesPerRound = 37

    /// Where a phase's instructions went: a label, and the source file (and symbol fragment)
    /// whose largest inclusive count is that part, or the C functions it sums.
    static let parts: [(label: String, count: @Sendable (CallgrindProfile) -> Int?)] = [
        ("requests (a request's whole work)", { $0.largest(file: "HTTP/HTTPServer.swift") }),
        ("sealing", { $0.largest(file: "Sealing/PushSealer.swift") }),
        (
            "X25519 (libsodium)",
            {
                guard let shared = $0.library(function: "crypto_scalarmult_curve25519"),
                    let base = $0.library(function: "crypto_scalarmult_curve25519_base")
                else { return nil }
                return shared + base
            }
        ),
        ("request JSON", { $0.largest(file: "API/RequestReader.swift") }),
        ("token check", { $0.largest(file: "API/GatewayAPI.swift", symbol: "authenticate") }),
        ("event log", { $0.largest(file: "EventLog.swift") }),
        ("store's write transactions", { $0.largest(file: "/SQLiteGroupCommit.swift") }),
        ("delivery workers (claims)", { $0.largest(file: "Delivery/DeliveryWorkers.swift") }),
        ("APNs client", { $0.largest(file: "Delivery/APNsSender.swift") }),
        ("outcomes recorded", { $0.largest(file: "Delivery/OutcomeRecorder.swift") }),
    ]

    /// What one phase counted.
    struct Count {
        /// `one device` or `ten devices`.
        let phase: String
        let pushes: Int
        let deliveries: Int
        /// The gateway's instructions per push, in all.
        let perPush: Double
        /// Per push, by part (nil where the profile has no such function).
        let parts: [(label: String, perPush: Double?)]

        /// The printed lines.
        var lines: [String] {
            let thousands = { (value: Double) in "\(Report.format(value / 1_000))k" }
            return [
                "  \(phase): \(thousands(perPush)) instructions a push (\(pushes) pushes, \(deliveries) deliveries)"
            ]
                + parts.map { "    \($0.label): \($0.perPush.map(thousands) ?? "not found")" }
        }

        /// The JSON of the results file.
        var json: JSONValue {
            .object(
                JSONObject([
                    ("pushes", .number(JSONNumber(pushes))), ("deliveries", .number(JSONNumber(deliveries))),
                    ("instructions_per_push", .number(JSONNumber(Int(perPush.rounded())))),
                    (
                        "parts_per_push",
                        .object(
                            JSONObject(
                                parts.map {
                                    ($0.label, $0.perPush.map { .number(JSONNumber(Int($0.rounded()))) } ?? .null)
                                })
                        )
                    ),
                ]))
        }
    }

    /// Counts `gateway` (with `cli` for keys) on `payload`, with one app and with three; nil
    /// when a step fails (valgrind missing, a push not delivered).
    static func run(cli: String, gateway: String, payload: JSONObject) -> [Count]? {
        guard let one = count(cli: cli, gateway: gateway, payload: payload, apps: nil),
            let three = count(cli: cli, gateway: gateway, payload: payload, apps: apps)
        else { return nil }
        return one + three
    }

    /// The `apps` member of a configuration of `names`, each with a `.p8` of its own made in
    /// `directory` (the fast mock checks a provider token's presence, not its key); nil when
    /// openssl fails.
    static func appsMember(_ names: [String], directory: String, mock: FastMockAPNsProcess) -> String? {
        var apps: [String] = []
        for (index, name) in names.enumerated() {
            let key = "\(directory)/AuthKey_\(name).p8"
            guard
                ProcessBench.run([
                    "openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key,
                ]).status == 0, ProcessBench.run(["chmod", "600", key]).status == 0
            else { return nil }
            apps.append(
                """
                "\(name)": {"sender_key_files": ["\(directory)/sender.jwk"],
                  "apns": {"auth_key_file": "\(key)", "key_id": "BENCHAPP0\(index + 1)",
                           "team_id": "\(FastMockAPNsProcess.teamID)", "topics": ["com.example.bench"],
                           "hosts": {"production": "https://127.0.0.1:\(mock.port)"}, "ca_file": "\(mock.certificate)"}}
                """)
        }
        return #""apps": {\#(apps.joined(separator: ", "))}"#
    }

    /// Counts one gateway: of one app, for one-device and ten-device pushes; or of the apps
    /// `apps`, for one-device pushes to each in turn.
    private static func count(cli: String, gateway: String, payload: JSONObject, apps: [String]?) -> [Count]? {
        let directory = "/tmp/pushseal-bench-instructions-\(getpid())"
        _ = ProcessBench.run(["rm", "-rf", directory])
        _ = ProcessBench.run(["mkdir", "-p", directory])
        defer { _ = ProcessBench.run(["rm", "-rf", directory]) }
        guard let mock = FastMockAPNsProcess.start(directory: directory, maximumConcurrentStreams: 400) else {
            return nil
        }
        defer { mock.stop() }
        _ = ProcessBench.run([cli, "keys", "generate", "--suite", "x25519", "--out", "\(directory)/sender.jwk"])
        let port = 19_000 + Int(getpid() % 1_000)
        let database = "sqlite:\(directory)/gateway.db"
        let configuration: String
        if let apps {
            guard let member = appsMember(apps, directory: directory, mock: mock) else { return nil }
            configuration = #"{"listen": "127.0.0.1:\#(port)", "database": "\#(database)", "workers": 4, \#(member)}"#
        } else {
            configuration = GatewayBench.configuration(
                port: port, database: database, workers: 4, directory: directory, mock: mock)
        }
        let config = ProcessBench.temporaryFile("gateway-instructions.json", Array(configuration.utf8))
        var tokens: [String] = []
        for app in apps.map({ $0.map(Optional.some) }) ?? [nil] {
            let made = ProcessBench.run(
                [gateway, "token", "create", "--config", config, "--scope", "admin"]
                    + (app.map { ["--app", $0] } ?? []))
            guard made.status == 0 else { return nil }
            tokens.append(String(decoding: made.output.filter { $0 != 0x0A }, as: UTF8.self))
        }
        let output = "\(directory)/callgrind.out"
        guard
            let server = ProcessBench.spawn([
                "valgrind", "--tool=callgrind", "--dump-instr=no", "--callgrind-out-file=\(output)", gateway, "serve",
                "--config", config,
            ])
        else { return nil }
        defer { server.stop() }
        let base = "http://127.0.0.1:\(port)"
        // Under valgrind the gateway starts some fifty times slower.
        guard GatewayBench.waitUntilHealthy(base, seconds: 60),
            tokens.allSatisfy({ GatewayBench.register(cli: cli, base: base, token: $0, pushService: nil) })
        else { return nil }
        let content = JSONWriter.string(.object(payload))
        var delivered = 0
        /// Posts `count` pushes to users `prefix0`… (round robin over `users`) of each token's
        /// app, in rounds of `round` per app, and waits until the mock answered every delivery
        /// and the outbox is empty.
        func post(_ count: Int, to prefix: String, users: Int, devices: Int, round: Int) -> Bool {
            for start in stride(from: 0, to: count, by: round) {
                for token in tokens {
                    let requests = (start..<min(count, start + round)).map {
                        GatewayBench.request(
                            "POST", "\(base)/v1/pushes",
                            #"{"to":{"user":"\#(prefix)\#($0 % users)"},"payload":\#(content)}"#)
                    }
                    guard GatewayBench.curl(requests, token: token, name: "instructions-\(prefix)").0 > 0 else {
                        return false
                    }
                }
            }
            delivered += count * devices * tokens.count
            return mock.waitUntilAnswered(delivered, seconds: 600) && GatewayBench.drain(base) > 0
        }
        // Warm: every code path once, the caches filled.
        guard post(100, to: "one", users: GatewayBench.singleUsers, devices: 1, round: 100),
            post(10, to: "ten", users: GatewayBench.tenUsers, devices: 10, round: 10)
        else { return nil }
        var counts: [Count] = []
        let phases =
            apps == nil
            ? [
                ("one device", "one", GatewayBench.singleUsers, 1, oneDevicePushes, oneDevicePushes),
                ("ten devices", "ten", GatewayBench.tenUsers, 10, tenDevicePushes, tenDevicePushes),
            ]
            : [("three apps, one device", "one", GatewayBench.singleUsers, 1, pushesPerApp, pushesPerRound)]
        for (dump, (phase, prefix, users, devices, perApp, round)) in phases.enumerated() {
            let pushes = perApp * tokens.count
            guard ProcessBench.run(["callgrind_control", "-z", "\(server.pid)"], discardOutput: true).status == 0,
                post(perApp, to: prefix, users: users, devices: devices, round: round),
                ProcessBench.run(["callgrind_control", "-d", "\(server.pid)"], discardOutput: true).status == 0,
                let profile = CallgrindProfile.read("\(output).\(dump + 1)")
            else { return nil }
            let perPush = { (value: Int) in Double(value) / Double(pushes) }
            counts.append(
                Count(
                    phase: phase, pushes: pushes, deliveries: pushes * devices, perPush: perPush(profile.total),
                    parts: parts.map { ($0.label, $0.count(profile).map(perPush)) }))
        }
        return counts
    }
}
