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
        let script = "interop/python/mock_apns.py"
        let authKey = "\(directory)/AuthKey.p8"
        let ready = "\(directory)/ready.json"
        guard ProcessBench.run([python, script, "make-key", "--out", authKey]).status == 0,
            let mock = ProcessBench.spawn([
                python, script, "serve", "--auth-key", authKey, "--key-id", "BENCHKEY01", "--team-id", "BENCHTEAM1",
                "--log", "/dev/null", "--ready", ready, "--cert-dir", directory, "--lifetime", "300",
            ])
        else { return nil }
        defer { mock.stop() }
        var waited = 0
        while access(ready, F_OK) != 0 && waited < 200 {
            usleep(50_000)
            waited += 1
        }
        guard let info = readFile(ready).flatMap({ try? JSONParser.parse($0).objectValue }),
            let port = info["port"]?.numberValue?.intValue, let certificate = info["certificate"]?.stringValue
        else { return nil }

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
                    cli, "send", "--auth-key", authKey, "--key-id", "BENCHKEY01", "--team-id", "BENCHTEAM1",
                    "--host", "https://127.0.0.1:\(port)", "--ca-file", certificate, "--concurrency", "\(streams)",
                    jobs(count),
                ],
                discardOutput: true)
            return run.status == 0 && run.seconds > 0 ? Double(count) / run.seconds : 0
        }
        return Result(oneStream: rate(streams: 1, count: 400), thirtyTwoStreams: rate(streams: 32, count: 4_000))
    }
}
