import PushSealCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The mock APNs of `interop/python/mock_apns.py`, started for a bench in `directory`: its auth
/// key, port and certificate. It stops when ``stop()`` closes its input.
struct MockAPNsProcess {
    /// The `.p8` the mock checks provider tokens against.
    let authKey: String
    /// Its port on 127.0.0.1.
    let port: Int
    /// Its self-signed certificate.
    let certificate: String
    /// Its request log.
    let log: String
    private let process: ProcessBench.Background

    /// The key id and team id the mock expects.
    static let keyID = "BENCHKEY01"
    static let teamID = "BENCHTEAM1"

    /// Makes a key and starts the mock with `options` (`--delay-ms 50`, …), its command line after
    /// `prefix` (`taskset -c 1`); nil when it does not come up within 10 s.
    static func start(
        python: String, directory: String, options: [String] = [], prefix: [String] = []
    ) -> MockAPNsProcess? {
        let script = "interop/python/mock_apns.py"
        _ = ProcessBench.run(["mkdir", "-p", directory])
        let authKey = "\(directory)/AuthKey.p8"
        let ready = "\(directory)/ready.json"
        let log = "\(directory)/requests.jsonl"
        guard ProcessBench.run([python, script, "make-key", "--out", authKey]).status == 0,
            let process = ProcessBench.spawn(
                prefix + [
                    python, script, "serve", "--auth-key", authKey, "--key-id", keyID, "--team-id", teamID,
                    "--log", log, "--ready", ready, "--cert-dir", directory, "--lifetime", "600",
                ] + options)
        else { return nil }
        guard let info = ProcessBench.readyFile(ready, of: process),
            let port = info["port"]?.numberValue?.intValue, let certificate = info["certificate"]?.stringValue
        else {
            process.stop()
            return nil
        }
        return MockAPNsProcess(authKey: authKey, port: port, certificate: certificate, log: log, process: process)
    }

    /// The most streams the mock saw open at once so far; the log is emptied for the next run.
    func mostOpenStreams() -> Int {
        defer { _ = ProcessBench.run(["truncate", "-s", "0", log]) }
        var most = 0
        for line in (readFile(log) ?? []).split(separator: 0x0A) {
            let open = (try? JSONParser.parse(Array(line)).objectValue)?["streams_open"]?.numberValue?.intValue
            most = max(most, open ?? 0)
        }
        return most
    }

    /// The CPU time the mock has used so far, in seconds.
    func cpuSeconds() -> Double { ProcessBench.cpuSeconds(of: process.pid) }

    /// Stops the mock.
    func stop() { process.stop() }
}
