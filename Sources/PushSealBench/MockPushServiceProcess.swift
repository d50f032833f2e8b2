import PushSealCore

/// The mock push service of `interop/python/mock_push_service.py`, started for a bench in
/// `directory` with a receiver of its own: its port and certificate. It decrypts every message
/// with http_ece, as a browser would. It stops when ``stop()`` closes its input.
struct MockPushServiceProcess {
    /// Its port on 127.0.0.1.
    let port: Int
    /// Its self-signed certificate.
    let certificate: String
    /// The subscription's keys (`{"p256dh", "auth"}`) of its receiver, which every endpoint shares.
    let keys: String
    private let process: ProcessBench.Background

    /// Makes a receiver with `cli` and starts the mock, its `slow` endpoints answering
    /// `delayMilliseconds` late; nil when it does not come up within 10 s.
    static func start(cli: String, python: String, directory: String, delayMilliseconds: Int)
        -> MockPushServiceProcess?
    {
        let receiver = "\(directory)/push-receiver.json"
        let subscribed = ProcessBench.run([
            cli, "webpush", "subscribe", "--endpoint", "https://push.invalid/any", "--out", receiver,
        ])
        guard subscribed.status == 0,
            let keys = (try? JSONParser.parse(subscribed.output).objectValue)?["keys"],
            let process = ProcessBench.spawn([
                python, "interop/python/mock_push_service.py", "serve", "--receiver", receiver, "--log", "/dev/null",
                "--ready", "\(directory)/push-ready.json", "--cert-dir", directory, "--lifetime", "600",
                "--slow-ms", "\(delayMilliseconds)",
            ]),
            let info = ProcessBench.readyFile("\(directory)/push-ready.json", of: process),
            let port = info["port"]?.numberValue?.intValue, let certificate = info["certificate"]?.stringValue
        else { return nil }
        return MockPushServiceProcess(
            port: port, certificate: certificate, keys: JSONWriter.string(keys), process: process)
    }

    /// A subscription of its receiver whose endpoint answers 201 after the delay.
    func subscription(_ name: String) -> String {
        #"{"endpoint":"https://127.0.0.1:\#(port)/push/slow/\#(name)","keys":\#(keys)}"#
    }

    /// Stops the mock.
    func stop() { process.stop() }
}
