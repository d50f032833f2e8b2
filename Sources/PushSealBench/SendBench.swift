import PushSealCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `pushseal send` to the mock APNs over one HTTP/2 connection: pushes per second with one
/// stream and with 32. The payloads are sealed beforehand, so this measures delivery alone; the
/// mock is a Python server, so the numbers bound the client from below.
enum SendBench {
    struct Result {
        let oneStream: Double
        let thirtyTwoStreams: Double
    }

    static func run(cli: String, python: String, payload: JSONObject) -> Result? {
        let directory = "/tmp/pushseal-bench-send-\(getpid())"
        _ = ProcessBench.run(["rm", "-rf", directory])
        _ = ProcessBench.run(["mkdir", "-p", directory])
        defer { _ = ProcessBench.run(["rm", "-rf", directory]) }
        guard let mock = MockAPNsProcess.start(python: python, directory: directory) else { return nil }
        defer { mock.stop() }
        let (authKey, port, certificate) = (mock.authKey, mock.port, mock.certificate)

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
        func rate(streams: Int, count: Int) -> Double {
            let run = ProcessBench.run(
                [
                    cli, "send", "--auth-key", authKey, "--key-id", MockAPNsProcess.keyID, "--team-id",
                    MockAPNsProcess.teamID,
                    "--host", "https://127.0.0.1:\(port)", "--ca-file", certificate, "--concurrency", "\(streams)",
                    jobs(count),
                ],
                discardOutput: true)
            return run.status == 0 && run.seconds > 0 ? Double(count) / run.seconds : 0
        }
        return Result(oneStream: rate(streams: 1, count: 400), thirtyTwoStreams: rate(streams: 32, count: 4_000))
    }
}
