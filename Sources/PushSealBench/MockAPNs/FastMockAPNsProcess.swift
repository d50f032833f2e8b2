import PushSealCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// ``FastMockAPNs`` started for a bench in `directory`, as a child process of this bench (its
/// executable run with ``command``): its auth key, port and certificate, made with the `openssl`
/// command, and what its status file says. It stops when ``stop()`` closes its input.
struct FastMockAPNsProcess {
    /// The first argument that makes the bench executable the mock.
    static let command = "mock-apns"

    /// The `.p8` a client signs provider tokens with (the fast mock checks their presence, not
    /// their signature).
    let authKey: String
    /// Its port on 127.0.0.1.
    let port: Int
    /// Its self-signed certificate, for 127.0.0.1.
    let certificate: String
    private let status: String
    /// Where the kept request bodies are written, once all came.
    private let bodies: String
    private let process: ProcessBench.Background

    /// The key id and team id the provider tokens carry.
    static let keyID = "BENCHKEY01"
    static let teamID = "BENCHTEAM1"

    /// Makes the keys and starts the mock, answering `delayMilliseconds` late and as `answers`
    /// script (`PREFIX=STATUS[:REASON][@MILLISECONDS]`), its command line after `prefix` (`taskset -c
    /// 1`), keeping the first `keepBodies` request bodies for ``keptBodies()``; nil when it does
    /// not come up within 10 s.
    static func start(
        directory: String, delayMilliseconds: Int = 0, maximumConcurrentStreams: Int = 100, answers: [String] = [],
        prefix: [String] = [], keepBodies: Int = 0
    ) -> FastMockAPNsProcess? {
        _ = ProcessBench.run(["mkdir", "-p", directory])
        let authKey = "\(directory)/FastAuthKey.p8"
        let certificate = "\(directory)/fast-mock-certificate.pem"
        let privateKey = "\(directory)/fast-mock-key.pem"
        let ready = "\(directory)/fast-mock-ready.json"
        let status = "\(directory)/fast-mock-status.json"
        let bodies = "\(directory)/fast-mock-bodies.jsonl"
        guard
            ProcessBench.run([
                "openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", authKey,
            ]).status == 0,
            ProcessBench.run([
                "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days",
                "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", privateKey, "-out",
                certificate,
            ]).status == 0
        else { return nil }
        let arguments =
            [
                executablePath(), command, "--certificate", certificate, "--private-key", privateKey, "--ready", ready,
                "--status", status, "--delay-ms", "\(delayMilliseconds)", "--max-concurrent-streams",
                "\(maximumConcurrentStreams)",
            ] + answers.flatMap { ["--answer", $0] }
            + (keepBodies > 0 ? ["--keep-bodies", "\(keepBodies)", "--bodies", bodies] : [])
        guard let process = ProcessBench.spawn(prefix + arguments) else { return nil }
        guard let info = ProcessBench.readyFile(ready, of: process), let port = info["port"]?.numberValue?.intValue
        else { return nil }
        return FastMockAPNsProcess(
            authKey: authKey, port: port, certificate: certificate, status: status, bodies: bodies, process: process)
    }

    /// The request bodies kept (`keepBodies` of ``start(directory:delayMilliseconds:maximumConcurrentStreams:answers:prefix:keepBodies:)``),
    /// each parsed; nil until all of them came.
    func keptBodies() -> [JSONObject]? {
        guard let bytes = readFile(bodies) else { return nil }
        return bytes.split(separator: 0x0A).compactMap { try? JSONParser.parse(Array($0)).objectValue }
    }

    /// Requests answered so far, and the most streams open at once, as of the last status write
    /// (at most 20 ms old).
    func progress() -> (answered: Int, mostOpenStreams: Int) {
        let status = readFile(status).flatMap { try? JSONParser.parse($0).objectValue }
        return (
            status?["answered"]?.numberValue?.intValue ?? 0, status?["most_open"]?.numberValue?.intValue ?? 0
        )
    }

    /// Waits until `count` requests were answered in all, or `seconds` passed; whether they were.
    func waitUntilAnswered(_ count: Int, seconds: Double = 120) -> Bool {
        let clock = ContinuousClock()
        let start = clock.now
        while progress().answered < count {
            guard Stopwatch.seconds(since: start, clock) < seconds else { return false }
            usleep(5_000)
        }
        return true
    }

    /// The CPU time the mock has used so far, in seconds.
    func cpuSeconds() -> Double { ProcessBench.cpuSeconds(of: process.pid) }

    /// Freezes the mock (SIGSTOP): requests wait unanswered, as behind a stalled network.
    func pause() { kill(process.pid, SIGSTOP) }

    /// Lets a frozen mock go on (SIGCONT).
    func resume() { kill(process.pid, SIGCONT) }

    /// Stops the mock.
    func stop() {
        resume()
        process.stop()
    }

    /// This executable's path, as the kernel knows it.
    private static func executablePath() -> String {
        var buffer = [CChar](repeating: 0, count: 4_096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return CommandLine.arguments[0] }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
