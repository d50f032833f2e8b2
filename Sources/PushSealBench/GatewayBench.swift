import PushSealCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `pushseal-gateway` against the mock APNs: pushes accepted per second through
/// `POST /v1/pushes` (one device each, and a user of 10 devices), deliveries per second to the
/// mock end to end, their ratio to `pushseal send` in the same run, the accept-to-APNs latency
/// from the gateway's histogram, and the gateway's peak RSS. Requests come from one `curl
/// --parallel` process (16 connections), so accepting is measured without a process per request.
enum GatewayBench {
    struct Result {
        let acceptOneDevice: Double
        let acceptTenDevices: Double
        let deliveriesPerSecond: Double
        let latencyP50: Double
        let latencyP99: Double
        let peakResidentBytes: Int
    }

    static let pushes = 1_000
    static let userPushes = 200

    static func run(cli: String, gateway: String, python: String, payload: JSONObject) -> Result? {
        let directory = "/tmp/pushseal-bench-gateway-\(getpid())"
        _ = ProcessBench.run(["rm", "-rf", directory])
        _ = ProcessBench.run(["mkdir", "-p", directory])
        defer { _ = ProcessBench.run(["rm", "-rf", directory]) }
        guard let mock = MockAPNsProcess.start(python: python, directory: directory) else { return nil }
        defer { mock.stop() }
        let port = 18_000 + Int(getpid() % 1_000)
        _ = ProcessBench.run([cli, "keys", "generate", "--suite", "x25519", "--out", "\(directory)/sender.jwk"])
        let configuration = """
            {"listen": "127.0.0.1:\(port)", "database": "sqlite:\(directory)/gateway.db",
             "sender_key_files": ["\(directory)/sender.jwk"],
             "apns": {"auth_key_file": "\(mock.authKey)", "key_id": "\(MockAPNsProcess.keyID)",
                      "team_id": "\(MockAPNsProcess.teamID)", "topics": ["com.example.bench"],
                      "hosts": {"production": "https://127.0.0.1:\(mock.port)"}, "ca_file": "\(mock.certificate)"}}
            """
        let config = ProcessBench.temporaryFile("gateway.json", Array(configuration.utf8))
        let made = ProcessBench.run([gateway, "token", "create", "--config", config, "--scope", "admin"])
        let token = String(decoding: made.output.filter { $0 != 0x0A }, as: UTF8.self)
        guard made.status == 0, let server = ProcessBench.spawn([gateway, "serve", "--config", config]) else {
            return nil
        }
        defer { server.stop() }
        let base = "http://127.0.0.1:\(port)"
        var waited = 0
        while ProcessBench.run(["curl", "-sf", "\(base)/healthz"], discardOutput: true).status != 0 && waited < 100 {
            usleep(50_000)
            waited += 1
        }

        let key = ProcessBench.run([cli, "keys", "generate", "--suite", "x25519"])
        let publicKey = ProcessBench.run([cli, "keys", "public", ProcessBench.temporaryFile("gateway-key", key.output)])
        let jwk = String(decoding: publicKey.output.filter { $0 != 0x0A }, as: UTF8.self)
        var registrations: [String] = []
        for index in 0...10 {
            let token = String(repeating: "b", count: 56) + String(100_000_000 + index).suffix(8)
            let user = index == 0 ? "single" : "ten"
            registrations.append(
                request(
                    "PUT", "\(base)/v1/devices/d\(index)",
                    #"{"user":"\#(user)","token":"\#(token)","topic":"com.example.bench","environment":"production","key":\#(jwk)}"#
                ))
        }
        _ = curl(registrations, token: token, name: "register")

        let content = JSONWriter.string(.object(payload))
        let one = curl(
            Array(
                repeating: request("POST", "\(base)/v1/pushes", #"{"to":{"devices":["d0"]},"payload":\#(content)}"#),
                count: pushes),
            token: token, name: "one")
        let oneDrained = drain(base)
        let clock = ContinuousClock()
        let start = clock.now
        let ten = curl(
            Array(
                repeating: request("POST", "\(base)/v1/pushes", #"{"to":{"user":"ten"},"payload":\#(content)}"#),
                count: userPushes),
            token: token, name: "ten")
        _ = drain(base)
        let tenSeconds = Stopwatch.seconds(since: start, clock)
        let metrics = String(decoding: ProcessBench.run(["curl", "-s", "\(base)/metrics"]).output, as: UTF8.self)
        let peak = peakResidentBytes(server.pid)
        guard one > 0, ten > 0, oneDrained > 0 else { return nil }
        return Result(
            acceptOneDevice: Double(pushes) / one, acceptTenDevices: Double(userPushes) / ten,
            deliveriesPerSecond: Double(userPushes * 10) / tenSeconds,
            latencyP50: quantile(0.5, metrics), latencyP99: quantile(0.99, metrics), peakResidentBytes: peak)
    }

    /// One request of a curl config file.
    private static func request(_ method: String, _ url: String, _ body: String) -> String {
        var escaped = ""
        for character in body {
            if character == "\\" || character == "\"" { escaped.append("\\") }
            escaped.append(character)
        }
        return "request = \"\(method)\"\nurl = \"\(url)\"\ndata = \"\(escaped)\"\n"
    }

    /// Runs the requests with 16 in parallel; the wall time in seconds, or 0 on failure.
    private static func curl(_ requests: [String], token: String, name: String) -> Double {
        let headers = "header = \"Authorization: Bearer \(token)\"\nheader = \"Content-Type: application/json\"\n"
        let config = requests.map { headers + $0 + "output = \"/dev/null\"\n" }.joined(separator: "next\n")
        let path = ProcessBench.temporaryFile("curl-\(name)", Array(config.utf8))
        let run = ProcessBench.run(
            ["curl", "-s", "--fail-early", "--parallel", "--parallel-max", "16", "--config", path], discardOutput: true)
        return run.status == 0 ? run.seconds : 0
    }

    /// Waits until the outbox is empty; the seconds waited.
    private static func drain(_ base: String) -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<6_000 {
            let metrics = String(decoding: ProcessBench.run(["curl", "-s", "\(base)/metrics"]).output, as: UTF8.self)
            if metrics.contains("pushseal_gateway_queue_depth 0\n") { return Stopwatch.seconds(since: start, clock) }
            usleep(20_000)
        }
        return 0
    }

    /// The upper bound of the histogram bucket that holds quantile `q`.
    private static func quantile(_ q: Double, _ metrics: String) -> Double {
        var buckets: [(bound: Double, count: Double)] = []
        for line in metrics.split(separator: "\n")
        where line.hasPrefix("pushseal_gateway_accept_to_apns_seconds_bucket{le=\"") {
            let parts = line.split(separator: " ")
            let bound = parts[0].split(separator: "\"")[1]
            guard let count = Double(parts.last ?? ""), let value = Double(bound) else { continue }
            buckets.append((value, count))
        }
        guard let total = buckets.last?.count, total > 0 else { return 0 }
        return buckets.first { $0.count >= q * total }?.bound ?? 0
    }

    /// VmHWM of a running process, in bytes.
    private static func peakResidentBytes(_ pid: pid_t) -> Int {
        guard let status = readFile("/proc/\(pid)/status") else { return 0 }
        let text = String(decoding: status, as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return 0 }
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1_024
    }
}
