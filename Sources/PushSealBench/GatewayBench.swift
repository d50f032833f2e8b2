import PushSealCore
import PushSealPrimitives

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `pushseal-gateway` against the mock APNs: pushes accepted per second through
/// `POST /v1/pushes` (one device each, and a user of 10 devices), deliveries per second to the
/// mock end to end, their ratio to `pushseal send` in the same run, the accept-to-APNs latency
/// from the gateway's histogram, and the gateway's peak RSS. Requests come from one `curl
/// --parallel` process (16 connections, spread over the instances as a load balancer would), so
/// accepting is measured without a process per request. It runs on SQLite, and on PostgreSQL
/// with one and with three instances; and on SQLite again against a mock that answers 50 ms late,
/// where the workers must keep a whole batch in flight to keep up, and where a user of 5 APNs
/// devices and 5 Web Push subscriptions (a mock push service, 50 ms late too) is measured beside
/// the user of 10 APNs devices, and where a Web Push sender posts to the relay's endpoint of one
/// APNs device (messages accepted per second, and forwarded per second to the late mock).
enum GatewayBench {
    struct Result {
        /// `sqlite`, or `postgres` with the number of instances.
        let setup: String
        let acceptOneDevice: Double
        let acceptTenDevices: Double
        /// The 99th percentile of `POST /v1/pushes`' answer time, seconds (one device each).
        let acceptP99: Double
        let deliveriesPerSecond: Double
        let latencyP50: Double
        let latencyP99: Double
        /// The largest instance's.
        let peakResidentBytes: Int
        /// Deliveries per second to a user of 5 APNs devices and 5 subscriptions, when measured.
        var mixedDeliveriesPerSecond: Double?
        /// Web Push messages the relay accepted per second on one endpoint, when measured.
        var relayAcceptedPerSecond: Double?
        /// Those messages forwarded to the mock APNs per second, acceptance included.
        var relayForwardedPerSecond: Double?
    }

    /// Messages posted to the relay's endpoint.
    static let relayMessages = 1_000

    static let pushes = 1_000
    static let userPushes = 200

    /// Measures `instances` gateways on `database` (`sqlite:` when nil, a `postgres://` URL otherwise),
    /// delivering to a mock that answers `apnsDelayMilliseconds` late; with `webPushMix`, also a
    /// user of both kinds of device, its push service as late as APNs.
    static func run(
        cli: String, gateway: String, python: String, payload: JSONObject, database: String? = nil, instances: Int = 1,
        apnsDelayMilliseconds: Int = 0, webPushMix: Bool = false
    ) -> Result? {
        let directory = "/tmp/pushseal-bench-gateway-\(getpid())"
        _ = ProcessBench.run(["rm", "-rf", directory])
        _ = ProcessBench.run(["mkdir", "-p", directory])
        defer { _ = ProcessBench.run(["rm", "-rf", directory]) }
        guard
            let mock = MockAPNsProcess.start(
                python: python, directory: directory,
                options: apnsDelayMilliseconds > 0 ? ["--delay-ms", "\(apnsDelayMilliseconds)"] : [])
        else { return nil }
        defer { mock.stop() }
        var pushService: MockPushServiceProcess?
        var webPushMember = ""
        if webPushMix {
            pushService = MockPushServiceProcess.start(
                cli: cli, python: python, directory: directory, delayMilliseconds: apnsDelayMilliseconds)
            guard let pushService else { return nil }
            _ = ProcessBench.run([cli, "keys", "generate", "--suite", "p256", "--out", "\(directory)/vapid.jwk"])
            webPushMember = """
                , "webpush": {"vapid_key_file": "\(directory)/vapid.jwk", "subject": "mailto:bench@example.com",
                              "allow_local_destinations": true, "ca_file": "\(pushService.certificate)"}
                """
        }
        defer { pushService?.stop() }
        let firstPort = 18_000 + Int(getpid() % 1_000) * 4
        _ = ProcessBench.run([cli, "keys", "generate", "--suite", "x25519", "--out", "\(directory)/sender.jwk"])
        var configs: [String] = []
        for instance in 0..<instances {
            let configuration = """
                {"listen": "127.0.0.1:\(firstPort + instance)", "database": "\(database ?? "sqlite:\(directory)/gateway.db")",
                 "sender_key_files": ["\(directory)/sender.jwk"],
                 "apns": {"auth_key_file": "\(mock.authKey)", "key_id": "\(MockAPNsProcess.keyID)",
                          "team_id": "\(MockAPNsProcess.teamID)", "topics": ["com.example.bench"],
                          "hosts": {"production": "https://127.0.0.1:\(mock.port)"}, "ca_file": "\(mock.certificate)"}
                 \(webPushMember)\(webPushMix ? #", "relay": {"public_url": "https://relay.bench", "messages_per_second": 1000, "messages_burst": 10000}"# : "")}
                """
            configs.append(ProcessBench.temporaryFile("gateway-\(instance).json", Array(configuration.utf8)))
        }
        let made = ProcessBench.run([gateway, "token", "create", "--config", configs[0], "--scope", "admin"])
        let token = String(decoding: made.output.filter { $0 != 0x0A }, as: UTF8.self)
        guard made.status == 0 else { return nil }
        var servers: [ProcessBench.Background] = []
        defer { servers.forEach { $0.stop() } }
        for config in configs {
            guard let server = ProcessBench.spawn([gateway, "serve", "--config", config]) else { return nil }
            servers.append(server)
        }
        let bases = (0..<instances).map { "http://127.0.0.1:\(firstPort + $0)" }
        let base = bases[0]
        for instanceBase in bases {
            var waited = 0
            while ProcessBench.run(["curl", "-sf", "\(instanceBase)/healthz"], discardOutput: true).status != 0
                && waited < 100
            {
                usleep(50_000)
                waited += 1
            }
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
        if let pushService {
            for index in 0..<5 {
                let token = String(repeating: "c", count: 56) + String(100_000_000 + index).suffix(8)
                registrations.append(
                    request(
                        "PUT", "\(base)/v1/devices/m\(index)",
                        #"{"user":"mix","token":"\#(token)","topic":"com.example.bench","environment":"production","key":\#(jwk)}"#
                    ))
                registrations.append(
                    request(
                        "PUT", "\(base)/v1/devices/w\(index)",
                        #"{"user":"mix","subscription":\#(pushService.subscription("w\(index)"))}"#))
            }
        }
        _ = curl(registrations, token: token, name: "register")

        let content = JSONWriter.string(.object(payload))
        let (one, answerTimes) = curl(
            (0..<pushes).map {
                request(
                    "POST", "\(bases[$0 % instances])/v1/pushes", #"{"to":{"devices":["d0"]},"payload":\#(content)}"#)
            },
            token: token, name: "one")
        let oneDrained = drain(base)
        let clock = ContinuousClock()
        let start = clock.now
        let (ten, _) = curl(
            (0..<userPushes).map {
                request("POST", "\(bases[$0 % instances])/v1/pushes", #"{"to":{"user":"ten"},"payload":\#(content)}"#)
            },
            token: token, name: "ten")
        _ = drain(base)
        let tenSeconds = Stopwatch.seconds(since: start, clock)
        var mixedSeconds: Double?
        if pushService != nil {
            let mixStart = clock.now
            let (mixed, _) = curl(
                (0..<userPushes).map {
                    request(
                        "POST", "\(bases[$0 % instances])/v1/pushes", #"{"to":{"user":"mix"},"payload":\#(content)}"#)
                },
                token: token, name: "mix")
            if mixed > 0, drain(base) > 0 { mixedSeconds = Stopwatch.seconds(since: mixStart, clock) }
        }
        var relayRates: (accepted: Double, forwarded: Double)?
        if webPushMix { relayRates = relay(cli: cli, base: base, token: token, directory: directory, payload: content) }
        let metrics = bases.map {
            String(decoding: ProcessBench.run(["curl", "-s", "\($0)/metrics"]).output, as: UTF8.self)
        }
        let peak = servers.map { peakResidentBytes($0.pid) }.max() ?? 0
        guard one > 0, ten > 0, oneDrained > 0, !answerTimes.isEmpty else { return nil }
        return Result(
            setup: (database == nil ? "sqlite" : "postgres ×\(instances)")
                + (apnsDelayMilliseconds > 0 ? ", APNs \(apnsDelayMilliseconds) ms late" : ""),
            acceptOneDevice: Double(pushes) / one,
            acceptTenDevices: Double(userPushes) / ten, acceptP99: Spread(answerTimes).quantile(0.99),
            deliveriesPerSecond: Double(userPushes * 10) / tenSeconds,
            latencyP50: quantile(0.5, metrics), latencyP99: quantile(0.99, metrics), peakResidentBytes: peak,
            mixedDeliveriesPerSecond: mixedSeconds.map { Double(userPushes * 10) / $0 },
            relayAcceptedPerSecond: relayRates?.accepted, relayForwardedPerSecond: relayRates?.forwarded)
    }

    /// A Web Push sender posting ``relayMessages`` messages to the relay's endpoint of device `d0`
    /// (16 in parallel, one message sealed by `pushseal webpush seal` for its store's receiver):
    /// accepted per second, and forwarded per second until the outbox is empty; nil on failure.
    private static func relay(cli: String, base: String, token: String, directory: String, payload: String)
        -> (accepted: Double, forwarded: Double)?
    {
        let made = ProcessBench.run([
            "curl", "-s", "-X", "POST", "-H", "Authorization: Bearer \(token)", "-H", "Content-Type: application/json",
            "--data", "{}", "\(base)/v1/devices/d0/webpush",
        ])
        guard let answer = try? JSONParser.parse(made.output).objectValue,
            let publicEndpoint = answer["endpoint"]?.stringValue, publicEndpoint.hasPrefix("https://relay.bench/")
        else { return nil }
        let endpoint = base + publicEndpoint.dropFirst("https://relay.bench".count)
        _ = ProcessBench.run([cli, "keys", "init", "--store", "\(directory)/relay-store"])
        let keys = ProcessBench.run([cli, "keys", "webpush", "--store", "\(directory)/relay-store"])
        guard let receiver = try? JSONParser.parse(keys.output).objectValue else { return nil }
        // Sealed for the endpoint as the sender sees it (https); posted to this instance.
        let subscription = JSONObject([
            ("endpoint", .string(publicEndpoint)),
            (
                "keys",
                .object(JSONObject([("p256dh", receiver["p256dh"] ?? .null), ("auth", receiver["auth"] ?? .null)]))
            ),
        ])
        let subscriptionFile = ProcessBench.temporaryFile(
            "relay-subscription.json", JSONWriter.bytes(.object(subscription)))
        let sealed = ProcessBench.run(
            [
                cli, "webpush", "seal", "--subscription", subscriptionFile,
                ProcessBench.temporaryFile("relay-content", Array(payload.utf8)),
            ])
        guard let message = (try? JSONParser.parse(sealed.output).objectValue)?["body"]?.stringValue,
            let bytes = Base64URL.decode(message)
        else { return nil }
        let body = ProcessBench.temporaryFile("relay-message", bytes)
        let request =
            "url = \"\(endpoint)\"\nheader = \"Content-Encoding: aes128gcm\"\nheader = \"TTL: 3600\"\n"
            + "data-binary = \"@\(body)\"\noutput = \"/dev/null\"\nwrite-out = \"%{http_code}\\\\n\"\n"
        let config = ProcessBench.temporaryFile(
            "curl-relay", Array(Array(repeating: request, count: relayMessages).joined(separator: "next\n").utf8))
        let clock = ContinuousClock()
        let start = clock.now
        let run = ProcessBench.run(["curl", "-s", "--parallel", "--parallel-max", "16", "--config", config])
        let acceptSeconds = Stopwatch.seconds(since: start, clock)
        let created = String(decoding: run.output, as: UTF8.self).split(separator: "\n").filter { $0 == "201" }.count
        guard created == relayMessages, drain(base) > 0 else { return nil }
        let forwardSeconds = Stopwatch.seconds(since: start, clock)
        return (Double(relayMessages) / acceptSeconds, Double(relayMessages) / forwardSeconds)
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

    /// Runs the requests with 16 in parallel; the wall time in seconds (0 on failure) and each
    /// request's answer time.
    private static func curl(_ requests: [String], token: String, name: String) -> (Double, [Double]) {
        let headers = "header = \"Authorization: Bearer \(token)\"\nheader = \"Content-Type: application/json\"\n"
        let config = requests.map { headers + $0 + "output = \"/dev/null\"\nwrite-out = \"%{time_total}\\\\n\"\n" }
            .joined(separator: "next\n")
        let path = ProcessBench.temporaryFile("curl-\(name)", Array(config.utf8))
        let run = ProcessBench.run([
            "curl", "-s", "--fail-early", "--parallel", "--parallel-max", "16", "--config", path,
        ])
        let times = String(decoding: run.output, as: UTF8.self).split(separator: "\n").compactMap { Double($0) }
        return (run.status == 0 ? run.seconds : 0, times)
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

    /// The upper bound of the histogram bucket that holds quantile `q`, over every instance's histogram.
    private static func quantile(_ q: Double, _ metrics: [String]) -> Double {
        var counts: [Double: Double] = [:]
        for text in metrics {
            for line in text.split(separator: "\n")
            where line.hasPrefix("pushseal_gateway_accept_to_apns_seconds_bucket{le=\"") {
                let parts = line.split(separator: " ")
                let bound = parts[0].split(separator: "\"")[1]
                guard let count = Double(parts.last ?? ""), let value = Double(bound) else { continue }
                counts[value, default: 0] += count
            }
        }
        let buckets = counts.sorted { $0.key < $1.key }
        guard let total = buckets.last?.value, total > 0 else { return 0 }
        return buckets.first { $0.value >= q * total }?.key ?? 0
    }

    /// VmHWM of a running process, in bytes.
    private static func peakResidentBytes(_ pid: pid_t) -> Int {
        guard let status = readFile("/proc/\(pid)/status") else { return 0 }
        let text = String(decoding: status, as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return 0 }
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1_024
    }
}
