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
/// part with what it called; the parts overlap where one calls another).
enum GatewayInstructions {
    /// One-device pushes, then ten-device pushes (as many deliveries).
    static let oneDevicePushes = 1_000
    static let tenDevicePushes = 100

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

    /// Counts `gateway` (with `cli` for keys) on `payload`; nil when a step fails (valgrind
    /// missing, a push not delivered).
    static func run(cli: String, gateway: String, payload: JSONObject) -> [Count]? {
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
        let config = ProcessBench.temporaryFile(
            "gateway-instructions.json",
            Array(
                GatewayBench.configuration(
                    port: port, database: "sqlite:\(directory)/gateway.db", workers: 4, directory: directory, mock: mock
                ).utf8))
        let made = ProcessBench.run([gateway, "token", "create", "--config", config, "--scope", "admin"])
        let token = String(decoding: made.output.filter { $0 != 0x0A }, as: UTF8.self)
        let output = "\(directory)/callgrind.out"
        guard made.status == 0,
            let server = ProcessBench.spawn([
                "valgrind", "--tool=callgrind", "--dump-instr=no", "--callgrind-out-file=\(output)", gateway, "serve",
                "--config", config,
            ])
        else { return nil }
        defer { server.stop() }
        let base = "http://127.0.0.1:\(port)"
        // Under valgrind the gateway starts some fifty times slower.
        guard GatewayBench.waitUntilHealthy(base, seconds: 60),
            GatewayBench.register(cli: cli, base: base, token: token, pushService: nil)
        else { return nil }
        let content = JSONWriter.string(.object(payload))
        var delivered = 0
        /// Posts `count` pushes to users `prefix0`… (round robin over `users`) and waits until
        /// the mock answered every delivery and the outbox is empty.
        func post(_ count: Int, to prefix: String, users: Int, devices: Int) -> Bool {
            let requests = (0..<count).map {
                GatewayBench.request(
                    "POST", "\(base)/v1/pushes", #"{"to":{"user":"\#(prefix)\#($0 % users)"},"payload":\#(content)}"#)
            }
            guard GatewayBench.curl(requests, token: token, name: "instructions-\(prefix)").0 > 0 else { return false }
            delivered += count * devices
            return mock.waitUntilAnswered(delivered, seconds: 600) && GatewayBench.drain(base) > 0
        }
        // Warm: every code path once, the caches filled.
        guard post(100, to: "one", users: GatewayBench.singleUsers, devices: 1),
            post(10, to: "ten", users: GatewayBench.tenUsers, devices: 10)
        else { return nil }
        var counts: [Count] = []
        let phases = [
            ("one device", "one", GatewayBench.singleUsers, 1, oneDevicePushes),
            ("ten devices", "ten", GatewayBench.tenUsers, 10, tenDevicePushes),
        ]
        for (dump, (phase, prefix, users, devices, pushes)) in phases.enumerated() {
            guard ProcessBench.run(["callgrind_control", "-z", "\(server.pid)"], discardOutput: true).status == 0,
                post(pushes, to: prefix, users: users, devices: devices),
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
