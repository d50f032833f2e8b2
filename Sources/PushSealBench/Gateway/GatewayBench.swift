import PushSealBenchStatistics
import PushSealCore
import PushSealPrimitives

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `pushseal-gateway` at line rate, each figure beside what bounds it in the same run.
///
/// APNs is ``FastMockAPNs`` (nghttp2, one core, far above what a gateway asks of it), so that
/// the delivery figures measure the gateway; the load is wrk (``WrkLoad``), 32 connections
/// posting to users picked at random. In order, on one set of instances:
///
/// 1. accepts at their peak, one device per user, while the workers deliver, with what they cost
///    (``PhaseCost``: how busy the processors were, the CPU a push, and the rate that cost allows);
/// 2. the answer time at half that rate (p50, p99);
/// 3. the cost per push at a fixed 1,000 pushes/s: the instances' CPU time per push accepted and
///    delivered, and their peak RSS;
/// 4. accepts at their peak, ten devices per user (deliveries stored per second), and their cost;
/// 5. deliveries: the mock is stopped (SIGSTOP) while ten-device pushes are accepted for 4 s, then
///    let go, and the backlog's drain is timed; at a 50 ms round trip beside the latency limit
///    (workers × streams / round trip) and beside `pushseal send` on as many jobs with as many
///    streams;
/// 6. the store's floor (``StoreFloor``): the same rows inserted and committed with nothing else,
///    one push per commit and 64, and one push of ten deliveries per commit.
///
/// With `webPushMix`, the user of 5 APNs devices and 5 Web Push subscriptions (the Python push
/// service mock, as late as APNs) and the relay are measured too, as before.
enum GatewayBench {
    /// Users of one device, and of ten.
    static let singleUsers = 1_000
    static let tenUsers = 100
    /// Seconds of each wrk phase.
    static let phaseSeconds = 5
    /// The fixed rate the cost per push is measured at.
    static let fixedRate = 1_000.0
    /// Messages posted to the relay's endpoint.
    static let relayMessages = 1_000
    static let userPushes = 200

    /// Measures `instances` gateways on `database` (`sqlite:` when nil, a `postgres://` URL
    /// otherwise), delivering to the fast mock answering `apnsDelayMilliseconds` late; with
    /// `webPushMix`, also a user of both kinds of device and the relay. With `databaseServer`
    /// (PostgreSQL's postmaster), the cost per push counts its processes' CPU too.
    static func run(
        cli: String, gateway: String, python: String, payload: JSONObject, database: String? = nil, instances: Int = 1,
        databaseServer: pid_t? = nil, apnsDelayMilliseconds: Int = 0, webPushMix: Bool = false
    ) -> Result? {
        let directory = "/tmp/pushseal-bench-gateway-\(getpid())"
        _ = ProcessBench.run(["rm", "-rf", directory])
        _ = ProcessBench.run(["mkdir", "-p", directory])
        defer { _ = ProcessBench.run(["rm", "-rf", directory]) }
        let workers = 4
        let streams = 100
        guard
            let mock = FastMockAPNsProcess.start(
                directory: directory, delayMilliseconds: apnsDelayMilliseconds,
                maximumConcurrentStreams: workers * streams)
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
                              "allow_local_destinations": true, "ca_file": "\(pushService.certificate)",
                              "navigate": "https://bench.example.com/"}
                """
        }
        defer { pushService?.stop() }
        let firstPort = 18_000 + Int(getpid() % 1_000) * 4
        _ = ProcessBench.run([cli, "keys", "generate", "--suite", "x25519", "--out", "\(directory)/sender.jwk"])
        let databaseURL = database ?? "sqlite:\(directory)/gateway.db"
        var configs: [String] = []
        for instance in 0..<instances {
            let relayMember =
                webPushMix
                ? #", "relay": {"public_url": "https://relay.bench", "messages_per_second": 1000, "messages_burst": 10000}"#
                : ""
            let text = configuration(
                port: firstPort + instance, database: databaseURL, workers: workers, directory: directory, mock: mock,
                members: webPushMember + relayMember)
            configs.append(ProcessBench.temporaryFile("gateway-\(instance).json", Array(text.utf8)))
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
        for instanceBase in bases { _ = waitUntilHealthy(instanceBase, seconds: 5) }
        guard register(cli: cli, base: base, token: token, pushService: pushService) else { return nil }

        let content = JSONWriter.string(.object(payload))
        var delivered = 0
        /// Waits until the mock answered every delivery accepted so far (and no more came for
        /// 300 ms); the seconds it took.
        func waitForMock() -> Double? {
            let clock = ContinuousClock()
            let start = clock.now
            guard mock.waitUntilAnswered(delivered) else { return nil }
            var last = mock.progress().answered
            while true {
                usleep(300_000)
                let now = mock.progress().answered
                if now == last { break }
                last = now
            }
            delivered = last
            return Stopwatch.seconds(since: start, clock)
        }
        func load(_ prefix: String, users: Int, seconds: Int = phaseSeconds, rate: Double? = nil) -> WrkLoad.Result? {
            WrkLoad.run(
                bases: bases, token: token, prefix: prefix, users: users, payload: content, seconds: seconds, rate: rate
            )
        }
        /// Runs one phase of load, waits until the mock answered its deliveries, and counts its cost.
        func measured(deliveriesPerPush: Int, _ phase: () -> WrkLoad.Result?) -> (WrkLoad.Result, PhaseCost)? {
            var meter = PhaseMeter(
                cpuSeconds: {
                    (
                        servers.map { ProcessBench.cpuSeconds(of: $0.pid) }.reduce(0, +),
                        databaseServer.map { ProcessBench.cpuSecondsWithChildren(of: $0) }
                    )
                },
                writerSample: {
                    // SQLite serves one instance, so one gateway's counters are the writer's.
                    guard database == nil else { return nil }
                    let metrics = ProcessBench.run(["curl", "-s", "\(base)/metrics"]).output
                    return WriterLoad.Sample(metrics: String(decoding: metrics, as: UTF8.self), at: .now)
                })
            guard let result = phase() else { return nil }
            meter.loadEnded()
            delivered += result.accepted * deliveriesPerPush
            guard waitForMock() != nil else { return nil }
            return (result, meter.cost(pushes: result.accepted))
        }
        // 1. Peak accepts, one device each.
        guard let (oneDevice, oneDeviceCost) = measured(deliveriesPerPush: 1, { load("one", users: singleUsers) }),
            oneDevice.accepted > 0
        else { return nil }
        // 2. Half that rate.
        guard let halfRate = load("one", users: singleUsers, rate: oneDevice.perSecond / 2) else { return nil }
        delivered += halfRate.accepted
        guard waitForMock() != nil else { return nil }
        // 3. The cost per push at a fixed rate: accepting and delivering it.
        guard
            let (fixed, fixedRateCost) = measured(
                deliveriesPerPush: 1, { load("one", users: singleUsers, rate: fixedRate) })
        else { return nil }
        let latencyMetrics = bases.map {
            String(decoding: ProcessBench.run(["curl", "-s", "\($0)/metrics"]).output, as: UTF8.self)
        }
        // 4. Peak accepts, ten devices each.
        guard let (tenDevices, tenDevicesCost) = measured(deliveriesPerPush: 10, { load("ten", users: tenUsers) }),
            tenDevices.accepted > 0
        else { return nil }
        // 5. A backlog accepted while the mock is stopped, then drained.
        mock.pause()
        let backlogLoad = load("ten", users: tenUsers, seconds: 4)
        let backlog = (backlogLoad?.accepted ?? 0) * 10
        let answeredBefore = mock.progress().answered
        mock.resume()
        let drainClock = ContinuousClock()
        let drainStart = drainClock.now
        delivered += backlog
        guard backlog > 0, mock.waitUntilAnswered(delivered) else { return nil }
        let drainSeconds = Stopwatch.seconds(since: drainStart, drainClock)
        let deliveriesPerSecond = Double(delivered - answeredBefore) / drainSeconds
        _ = waitForMock()
        let mockCPU = mock.cpuSeconds()
        let mostOpen = mock.progress().mostOpenStreams
        let sendDirect =
            apnsDelayMilliseconds > 0
            ? sendRate(
                cli: cli, payload: payload, directory: directory, mock: mock, jobs: backlog, streams: workers * streams)
            : nil

        var mixedSeconds: Double?
        if pushService != nil {
            let clock = ContinuousClock()
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
        let peak = servers.map { peakResidentBytes($0.pid) }.max() ?? 0
        servers.forEach { $0.stop() }
        servers = []

        // 6. The store's floors, with the gateways stopped.
        let sealed = sealedPayload(cli: cli, payload: payload, directory: directory)
        func floor(pushes: Int, deliveries: Int, perCommit: Int) -> StoreFloor.Rate? {
            if let database {
                return StoreFloor.postgres(
                    url: database, body: sealed, pushes: pushes, deliveriesPerPush: deliveries,
                    pushesPerCommit: perCommit)
            }
            return StoreFloor.sqlite(
                source: "\(directory)/gateway.db", directory: directory, body: sealed, pushes: pushes,
                deliveriesPerPush: deliveries, pushesPerCommit: perCommit)
        }
        return Result(
            setup: (database == nil ? "sqlite" : "postgres ×\(instances)")
                + (apnsDelayMilliseconds > 0 ? ", APNs \(apnsDelayMilliseconds) ms late" : ""),
            apnsDelayMilliseconds: apnsDelayMilliseconds, workers: workers, streams: streams,
            oneDevice: oneDevice, halfRate: halfRate, tenDevices: tenDevices,
            oneDeviceFloor: floor(pushes: 2_000, deliveries: 1, perCommit: 1),
            oneDeviceBatchedFloor: floor(pushes: 20_000, deliveries: 1, perCommit: 64),
            tenDevicesFloor: floor(pushes: 1_000, deliveries: 10, perCommit: 1),
            backlog: backlog, deliveriesPerSecond: deliveriesPerSecond, sendDirect: sendDirect,
            mostOpenStreams: mostOpen, mockMicrosecondsPerRequest: mockCPU / Double(max(delivered, 1)) * 1_000_000,
            fixedRate: fixed, oneDeviceCost: oneDeviceCost, fixedRateCost: fixedRateCost,
            tenDevicesCost: tenDevicesCost, peakResidentBytes: peak,
            latencyP50: quantile(0.5, latencyMetrics), latencyP99: quantile(0.99, latencyMetrics),
            mixedDeliveriesPerSecond: mixedSeconds.map { Double(userPushes * 10) / $0 },
            relayAcceptedPerSecond: relayRates?.accepted, relayForwardedPerSecond: relayRates?.forwarded)
    }

    /// The configuration of a gateway listening on `port` of 127.0.0.1, on `database`, with
    /// `workers` APNs workers delivering to `mock`, sealing with `directory`/sender.jwk; `members`
    /// (each after a comma) are added to it.
    static func configuration(
        port: Int, database: String, workers: Int, directory: String, mock: FastMockAPNsProcess, members: String = ""
    ) -> String {
        """
        {"listen": "127.0.0.1:\(port)", "database": "\(database)", "workers": \(workers),
         "sender_key_files": ["\(directory)/sender.jwk"],
         "apns": {"auth_key_file": "\(mock.authKey)", "key_id": "\(FastMockAPNsProcess.keyID)",
                  "team_id": "\(FastMockAPNsProcess.teamID)", "topics": ["com.example.bench"],
                  "hosts": {"production": "https://127.0.0.1:\(mock.port)"}, "ca_file": "\(mock.certificate)"}
         \(members)}
        """
    }

    /// Waits until the gateway at `base` answers `/healthz`, asking every 50 ms for at most
    /// `seconds`; whether it did.
    static func waitUntilHealthy(_ base: String, seconds: Double) -> Bool {
        for _ in 0..<Int(seconds * 20) {
            if ProcessBench.run(["curl", "-sf", "\(base)/healthz"], discardOutput: true).status == 0 { return true }
            usleep(50_000)
        }
        return false
    }

    /// Registers the users of one device (`one0`…) and of ten (`ten0`…), and with a push service
    /// the user `mix`; false when a registration failed.
    static func register(cli: String, base: String, token: String, pushService: MockPushServiceProcess?)
        -> Bool
    {
        let key = ProcessBench.run([cli, "keys", "generate", "--suite", "x25519"])
        let publicKey = ProcessBench.run([cli, "keys", "public", ProcessBench.temporaryFile("gateway-key", key.output)])
        let jwk = String(decoding: publicKey.output.filter { $0 != 0x0A }, as: UTF8.self)
        var registrations: [String] = []
        var serial = 0
        func device(_ id: String, user: String, prefix: String = "b") -> String {
            serial += 1
            let token = String(repeating: prefix, count: 56) + String(100_000_000 + serial).suffix(8)
            return request(
                "PUT", "\(base)/v1/devices/\(id)",
                #"{"user":"\#(user)","token":"\#(token)","topic":"com.example.bench","environment":"production","key":\#(jwk)}"#
            )
        }
        for index in 0..<singleUsers { registrations.append(device("d-one\(index)", user: "one\(index)")) }
        for index in 0..<tenUsers {
            for member in 0..<10 { registrations.append(device("d-ten\(index)-\(member)", user: "ten\(index)")) }
        }
        if let pushService {
            for index in 0..<5 {
                registrations.append(device("m\(index)", user: "mix", prefix: "c"))
                registrations.append(
                    request(
                        "PUT", "\(base)/v1/devices/w\(index)",
                        #"{"user":"mix","subscription":\#(pushService.subscription("w\(index)"))}"#))
            }
        }
        return curl(registrations, token: token, name: "register").0 > 0
    }

    /// The sealed outer payload `pushseal encrypt` makes of `payload` for a new X25519 key: what
    /// the gateway stores for one delivery.
    private static func sealedPayload(cli: String, payload: JSONObject, directory: String) -> [UInt8] {
        let key = ProcessBench.run([cli, "keys", "generate", "--suite", "x25519"])
        let publicKey = ProcessBench.run([cli, "keys", "public", ProcessBench.temporaryFile("floor-key", key.output)])
        let sealed = ProcessBench.run([
            cli, "encrypt", "--to", ProcessBench.temporaryFile("floor-pub", publicKey.output),
            ProcessBench.temporaryFile("floor-payload", JSONWriter.bytes(.object(payload))),
        ])
        return sealed.output.filter { $0 != 0x0A }
    }

    /// `pushseal send` of `jobs` pushes (the payload sealed once) to `mock` with `streams`
    /// streams over its one connection: pushes per second, or nil.
    private static func sendRate(
        cli: String, payload: JSONObject, directory: String, mock: FastMockAPNsProcess, jobs: Int, streams: Int
    ) -> Double? {
        let sealed = sealedPayload(cli: cli, payload: payload, directory: directory)
        var lines: [UInt8] = []
        for index in 0..<jobs {
            let token = String(repeating: "a", count: 56) + String(100_000_000 + index).suffix(8)
            lines +=
                Array(#"{"token":"\#(token)","topic":"com.example.bench","sealed":"#.utf8) + sealed + Array("}\n".utf8)
        }
        let run = ProcessBench.run(
            [
                cli, "send", "--auth-key", mock.authKey, "--key-id", FastMockAPNsProcess.keyID, "--team-id",
                FastMockAPNsProcess.teamID, "--host", "https://127.0.0.1:\(mock.port)", "--ca-file", mock.certificate,
                "--concurrency", "\(streams)", ProcessBench.temporaryFile("send-direct-jobs", lines),
            ], discardOutput: true)
        return run.status == 0 && run.seconds > 0 ? Double(jobs) / run.seconds : nil
    }

    /// A Web Push sender posting ``relayMessages`` messages to the relay's endpoint of device `d0`
    /// (16 in parallel, one message sealed by `pushseal webpush seal` for its store's receiver):
    /// accepted per second, and forwarded per second until the outbox is empty; nil on failure.
    private static func relay(cli: String, base: String, token: String, directory: String, payload: String)
        -> (accepted: Double, forwarded: Double)?
    {
        let made = ProcessBench.run([
            "curl", "-s", "-X", "POST", "-H", "Authorization: Bearer \(token)", "-H", "Content-Type: application/json",
            "--data", "{}", "\(base)/v1/devices/d-one0/webpush",
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
    static func request(_ method: String, _ url: String, _ body: String) -> String {
        var escaped = ""
        for character in body {
            if character == "\\" || character == "\"" { escaped.append("\\") }
            escaped.append(character)
        }
        return "request = \"\(method)\"\nurl = \"\(url)\"\ndata = \"\(escaped)\"\n"
    }

    /// Runs the requests with 16 in parallel; the wall time in seconds (0 on failure) and each
    /// request's answer time.
    static func curl(_ requests: [String], token: String, name: String) -> (Double, [Double]) {
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
    static func drain(_ base: String) -> Double {
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
        HistogramQuantile.upperBound(q, of: "pushseal_gateway_accept_to_apns_seconds", in: metrics)
    }

    /// VmHWM of a running process, in bytes.
    private static func peakResidentBytes(_ pid: pid_t) -> Int {
        guard let status = readFile("/proc/\(pid)/status") else { return 0 }
        let text = String(decoding: status, as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return 0 }
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1_024
    }
}
