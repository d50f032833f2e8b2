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
    private let process: ProcessBench.Background

    /// The key id and team id the mock expects.
    static let keyID = "BENCHKEY01"
    static let teamID = "BENCHTEAM1"

    /// Makes a key and starts the mock; nil when it does not come up within 10 s.
    static func start(python: String, directory: String) -> MockAPNsProcess? {
        let script = "interop/python/mock_apns.py"
        let authKey = "\(directory)/AuthKey.p8"
        let ready = "\(directory)/ready.json"
        guard ProcessBench.run([python, script, "make-key", "--out", authKey]).status == 0,
            let process = ProcessBench.spawn([
                python, script, "serve", "--auth-key", authKey, "--key-id", keyID, "--team-id", teamID,
                "--log", "/dev/null", "--ready", ready, "--cert-dir", directory, "--lifetime", "600",
            ])
        else { return nil }
        var waited = 0
        while access(ready, F_OK) != 0 && waited < 200 {
            usleep(50_000)
            waited += 1
        }
        guard let info = readFile(ready).flatMap({ try? JSONParser.parse($0).objectValue }),
            let port = info["port"]?.numberValue?.intValue, let certificate = info["certificate"]?.stringValue
        else {
            process.stop()
            return nil
        }
        return MockAPNsProcess(authKey: authKey, port: port, certificate: certificate, process: process)
    }

    /// Stops the mock.
    func stop() { process.stop() }
}
