import PushSealBenchStatistics
import PushSealCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `pushseal send` to the mock APNs over one HTTP/2 connection. The payloads are sealed
/// beforehand, so this measures delivery alone.
///
/// The mock is ``FastMockAPNs``, which spends some 20 µs of CPU a request, so that it is not what a
/// row measures (until issue 37's seventh round these rows ran against the Python mock, which spent
/// some 450 µs and bounded every rate near 2,000/s).
///
/// Against a mock that answers at once: pushes per second with one stream and with 32. Against a
/// mock that answers 50 ms late, as APNs does across the internet: pushes per second with 100
/// streams beside the latency limit (100 streams per 50 ms, 2,000/s) and beside aioapns (PyPI) on
/// the same jobs, mock and stream count, in three alternating rounds, twice: with every process
/// free to run on either core (as issue 29 measured), then with the client on core 0 and the mock
/// on core 1, as a client and a remote APNs are, each with a processor of its own. Last, runs at
/// 10, 100 and 1,000 streams against a mock that allows 1,000, counting lost pushes.
enum SendBench {
    struct Result {
        let oneStream: Double
        let thirtyTwoStreams: Double
        /// Shared cores, then a core each.
        let latency: [LatencyResult]
        /// Per `--concurrency` against a mock that allows 1,000 streams: jobs, and jobs not reported sent.
        let lossRuns: [(concurrency: Int, jobs: Int, lost: Int, perSecond: Double)]
    }

    /// Where the client and the mock ran.
    enum Placement: String {
        case sharedCores = "shared cores"
        case coreEach = "a core each"

        /// The command prefix that places the client, and the one that places the mock.
        var prefixes: (client: [String], mock: [String]) {
            switch self {
            case .sharedCores: ([], [])
            case .coreEach: (["taskset", "-c", "0"], ["taskset", "-c", "1"])
            }
        }
    }

    /// Delivery at a realistic round trip.
    struct LatencyResult {
        /// Where the processes ran.
        let placement: Placement
        /// The mock's answer delay.
        let delayMilliseconds: Int
        /// `--concurrency` of the main run.
        let streams: Int
        /// pushseal send's pushes per second (the median of the rounds).
        let pushseal: Double
        /// aioapns' pushes per second (the median of the rounds), when it ran.
        let aioapns: Double?
        /// pushseal's rate over aioapns' in each round.
        let toAioapns: Spread?
        /// The most open streams the mock saw during pushseal's run.
        let mostOpenStreams: Int
        /// CPU time (user and system) per push of the client process, in microseconds.
        let pushsealMicrosecondsPerPush: Double
        let aioapnsMicrosecondsPerPush: Double?
        /// The share of one core the mock used during pushseal's runs: near 1, the mock is the limit.
        let mockBusy: Double

        /// What `streams` can carry at `delayMilliseconds` per answer.
        var limit: Double { Double(streams) * 1000 / Double(delayMilliseconds) }
    }

    static let latencyJobs = 6_000
    /// Rounds of pushseal then aioapns at 50 ms.
    static let latencyRounds = 3

    static func run(cli: String, python: String, payload: JSONObject) -> Result? {
        let directory = "/tmp/pushseal-bench-send-\(getpid())"
        _ = ProcessBench.run(["rm", "-rf", directory])
        _ = ProcessBench.run(["mkdir", "-p", directory])
        defer { _ = ProcessBench.run(["rm", "-rf", directory]) }
        guard let mock = FastMockAPNsProcess.start(directory: directory) else { return nil }
        defer { mock.stop() }

        let key = ProcessBench.run([cli, "keys", "generate", "--suite", "x25519"])
        let publicKey = ProcessBench.run([cli, "keys", "public", ProcessBench.temporaryFile("send-key", key.output)])
        let payloadPath = ProcessBench.temporaryFile("send-payload", JSONWriter.bytes(.object(payload)))
        let sealed = ProcessBench.run([
            cli, "encrypt", "--to", ProcessBench.temporaryFile("send-pub", publicKey.output), payloadPath,
        ])
        guard sealed.status == 0 else { return nil }
        func jobs(_ count: Int) -> String {
            var lines: [UInt8] = []
            for index in 0..<count {
                let token = String(repeating: "a", count: 56) + String(100_000_000 + index).suffix(8)
                lines += Array(#"{"token":"\#(token)","topic":"com.example.bench","sealed":"#.utf8)
                lines += sealed.output.filter { $0 != 0x0A }
                lines += Array("}\n".utf8)
            }
            return ProcessBench.temporaryFile("send-jobs-\(count)", lines)
        }
        let oneStream = send(cli: cli, to: mock, streams: 1, jobs: jobs(400)).perSecond
        let thirtyTwo = send(cli: cli, to: mock, streams: 32, jobs: jobs(4_000)).perSecond
        let latencyJobs = jobs(latencyJobs)
        let latency = [Placement.sharedCores, .coreEach].compactMap {
            atLatency(
                cli: cli, python: python, directory: "\(directory)/\($0 == .coreEach ? "pinned" : "shared")",
                jobs: latencyJobs, placement: $0)
        }
        return Result(
            oneStream: oneStream, thirtyTwoStreams: thirtyTwo, latency: latency,
            lossRuns: lossRuns(cli: cli, directory: directory, jobs: latencyJobs))
    }

    /// One `pushseal send` run: pushes per second, how many jobs were not reported sent, and the
    /// run's wall and CPU seconds.
    private static func send(
        cli: String, to mock: FastMockAPNsProcess, streams: Int, jobs: String, prefix: [String] = []
    ) -> (perSecond: Double, lost: Int, jobs: Int, seconds: Double, cpuSeconds: Double) {
        let count = (readFile(jobs) ?? []).count { $0 == 0x0A }
        let run = ProcessBench.run(
            prefix + [
                cli, "send", "--auth-key", mock.authKey, "--key-id", FastMockAPNsProcess.keyID, "--team-id",
                FastMockAPNsProcess.teamID, "--host", "https://127.0.0.1:\(mock.port)", "--ca-file", mock.certificate,
                "--concurrency", "\(streams)", jobs,
            ])
        let sent = String(decoding: run.output, as: UTF8.self).split(separator: "\n").count {
            $0.contains(#""status":"sent""#)
        }
        let perSecond = run.status == 0 && run.seconds > 0 ? Double(count) / run.seconds : 0
        return (perSecond, count - sent, count, run.seconds, run.cpuSeconds)
    }

    /// The round trip of the 50 ms rows.
    static let delayMilliseconds = 50

    /// One 50 ms row: pushseal and aioapns at 100 streams, placed as `placement` says, in
    /// alternating rounds (the medians are reported).
    private static func atLatency(
        cli: String, python: String, directory: String, jobs: String, placement: Placement
    ) -> LatencyResult? {
        let delay = delayMilliseconds
        let streams = 100
        let (clientPrefix, mockPrefix) = placement.prefixes
        guard
            let mock = FastMockAPNsProcess.start(
                directory: directory, delayMilliseconds: delay, maximumConcurrentStreams: streams, prefix: mockPrefix)
        else { return nil }
        var pushsealRates: [Double] = []
        var aioapnsRates: [Double] = []
        var ratios: [Double] = []
        var mostOpen = 0
        var pushsealCPU: [Double] = []
        var aioapnsCPU: [Double] = []
        var mockBusy: [Double] = []
        let jobCount = Double(latencyJobs)
        for round in 0..<latencyRounds {
            let mockBefore = mock.cpuSeconds()
            let run = send(cli: cli, to: mock, streams: streams, jobs: jobs, prefix: clientPrefix)
            let pushseal = run.perSecond
            pushsealRates.append(pushseal)
            pushsealCPU.append(run.cpuSeconds / jobCount * 1_000_000)
            mockBusy.append((mock.cpuSeconds() - mockBefore) / max(run.seconds, 0.001))
            // The mock keeps the most streams it saw since it started: pushseal's, before aioapns runs.
            if round == 0 {
                usleep(50_000)
                mostOpen = mock.progress().mostOpenStreams
            }
            let aioapns = ProcessBench.run(
                clientPrefix + [
                    python, "interop/python/aioapns_send.py", "--auth-key", mock.authKey, "--key-id",
                    FastMockAPNsProcess.keyID, "--team-id", FastMockAPNsProcess.teamID, "--port", "\(mock.port)",
                    "--ca-file",
                    mock.certificate, "--concurrency", "\(streams)", jobs,
                ])
            if let rate = (try? JSONParser.parse(aioapns.output).objectValue)?["per_second"]?.numberValue?.doubleValue {
                aioapnsRates.append(rate)
                aioapnsCPU.append(aioapns.cpuSeconds / jobCount * 1_000_000)
                ratios.append(pushseal / max(rate, 1))
            }
        }
        mock.stop()
        return LatencyResult(
            placement: placement, delayMilliseconds: delay, streams: streams, pushseal: Spread(pushsealRates).median,
            aioapns: aioapnsRates.isEmpty ? nil : Spread(aioapnsRates).median,
            toAioapns: ratios.isEmpty ? nil : Spread(ratios), mostOpenStreams: mostOpen,
            pushsealMicrosecondsPerPush: Spread(pushsealCPU).median,
            aioapnsMicrosecondsPerPush: aioapnsCPU.isEmpty ? nil : Spread(aioapnsCPU).median,
            mockBusy: Spread(mockBusy).median)
    }

    /// Runs at 10, 100 and 1,000 streams against a mock that allows 1,000, 50 ms late: how many
    /// jobs were not reported sent.
    private static func lossRuns(
        cli: String, directory: String, jobs: String
    ) -> [(concurrency: Int, jobs: Int, lost: Int, perSecond: Double)] {
        guard
            let wide = FastMockAPNsProcess.start(
                directory: "\(directory)/wide", delayMilliseconds: delayMilliseconds, maximumConcurrentStreams: 1_000)
        else { return [] }
        defer { wide.stop() }
        return [10, 100, 1_000].map { concurrency in
            let run = send(cli: cli, to: wide, streams: concurrency, jobs: jobs)
            return (concurrency, run.jobs, run.lost, run.perSecond)
        }
    }
}
