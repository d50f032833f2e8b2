import PushSealCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `interop/python/media_server.py` serving `<work>/served` for a bench row: started, waited for
/// until it writes its ready file (port and certificate, in `work`), stopped by the caller.
struct MediaServerProcess {
    let process: ProcessBench.Background
    /// Its port on 127.0.0.1.
    let port: Int
    /// Its self-signed certificate, for `--ca-file`.
    let certificate: String

    /// Starts the server with `python`; nil when it did not come up within 10 s.
    init?(python: String, work: String) {
        guard
            let process = ProcessBench.spawn([
                python, "interop/python/media_server.py", "serve", "--root", "\(work)/served", "--ready",
                "\(work)/ready.json", "--cert-dir", work,
            ])
        else { return nil }
        var ready: JSONObject?
        for _ in 0..<200 where ready == nil {
            usleep(50_000)
            ready = readFile("\(work)/ready.json").flatMap { try? JSONParser.parse($0).objectValue }
        }
        guard let port = ready?["port"]?.numberValue?.intValue, let certificate = ready?["certificate"]?.stringValue
        else {
            process.stop()
            return nil
        }
        self.process = process
        self.port = port
        self.certificate = certificate
    }

    /// Stops the server.
    func stop() { process.stop() }
}
