import PushSealCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Load on the gateway's API from wrk (Debian's `wrk`): `POST /v1/pushes` to a user picked at
/// random among `users` for each request, over a number of connections spread across the
/// instances as a load balancer would (one wrk per instance), for a fixed time. Its Lua script
/// reports the exact counts and the answer times' percentiles when it ends.
enum WrkLoad {
    /// What one run measured, over every instance.
    struct Result {
        /// Requests answered 2xx.
        let accepted: Int
        /// Requests answered otherwise (a socket error counts too).
        let refused: Int
        let seconds: Double
        /// The answer time's median and 99th percentile, in seconds (the slowest instance's).
        let p50: Double
        let p99: Double

        /// Pushes accepted per second.
        var perSecond: Double { Double(accepted) / max(seconds, 0.001) }
    }

    /// Posts to `bases` (one URL per instance) for `seconds` over `connections` in all, each
    /// request to the user `prefix` followed by a number below `users`, with `payload`; with
    /// `rate`, each connection waits between its requests so that all of them together ask for
    /// about that many per second. Nil when wrk fails.
    static func run(
        bases: [String], token: String, prefix: String, users: Int, payload: String, seconds: Int,
        connections: Int = 32, rate: Double? = nil
    ) -> Result? {
        let perInstance = max(1, connections / bases.count)
        // Milliseconds between one connection's requests (wrk's delay() runs after each answer).
        let delay = rate.map { Double(perInstance * bases.count) * 1_000 / $0 } ?? 0
        let script = """
            wrk.method = "POST"
            wrk.headers["Authorization"] = "Bearer \(token)"
            wrk.headers["Content-Type"] = "application/json"
            local head = [==[{"to":{"user":"\(prefix)]==]
            local tail = [==["},"payload":\(payload)}]==]
            request = function()
              return wrk.format(nil, nil, nil, head .. math.random(0, \(users - 1)) .. tail)
            end
            \(delay > 0 ? "delay = function() return \(Int(delay.rounded())) end" : "")
            """
        return run(
            script: script, name: prefix, bases: bases, path: "/v1/pushes", seconds: seconds,
            connectionsPerInstance: perInstance)
    }

    /// Runs `script` (wrk's Lua: its `request`, and more; the report of the counts is added) in
    /// one wrk per instance of `bases`, at `path`, for `seconds` over `connectionsPerInstance`
    /// each. Nil when wrk fails.
    static func run(
        script: String, name: String, bases: [String], path: String, seconds: Int, connectionsPerInstance: Int = 32
    ) -> Result? {
        let reported =
            script + """

                done = function(summary, latency, requests)
                  local errors = summary.errors
                  io.write(string.format("RESULT %d %d %d %d %d\\n", summary.requests,
                    errors.status + errors.connect + errors.read + errors.write + errors.timeout, summary.duration,
                    latency:percentile(50), latency:percentile(99)))
                end
                """
        let scriptPath = ProcessBench.temporaryFile("wrk-\(name).lua", Array(reported.utf8))
        let outputs = bases.indices.map { ProcessBench.temporaryPath("wrk-\(name)-\($0).out") }
        let commands = zip(bases, outputs).map { base, output in
            "wrk -t 1 -c \(connectionsPerInstance) -d \(seconds)s --timeout 10s -s \(scriptPath) \(base)\(path) > \(output)"
        }
        let run = ProcessBench.run(["sh", "-c", commands.joined(separator: " & ") + " & wait"], discardOutput: true)
        guard run.status == 0 else { return nil }
        var accepted = 0
        var refused = 0
        var duration = 0.0
        var p50 = 0.0
        var p99 = 0.0
        for output in outputs {
            let text = String(decoding: readFile(output) ?? [], as: UTF8.self)
            guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix("RESULT ") }) else { return nil }
            let fields = line.split(separator: " ").dropFirst().compactMap { Double($0) }
            guard fields.count == 5 else { return nil }
            accepted += Int(fields[0]) - Int(fields[1])
            refused += Int(fields[1])
            duration = max(duration, fields[2] / 1_000_000)
            p50 = max(p50, fields[3] / 1_000_000)
            p99 = max(p99, fields[4] / 1_000_000)
        }
        return Result(accepted: accepted, refused: refused, seconds: duration, p50: p50, p99: p99)
    }
}
