import Foundation

/// The mock APNs of `interop/python/mock_apns.py`, run for one test and stopped after it.
package final class MockAPNs: @unchecked Sendable {
    /// The key id and team id the mock expects in provider tokens.
    package static let keyID = "KEY1234567"
    /// The team id.
    package static let teamID = "TEAM123456"

    /// The `.p8` auth key (a fresh P-256 key) the mock verifies tokens against.
    package let authKey: String
    /// `https://127.0.0.1:PORT`.
    package let url: String
    /// The mock's self-signed certificate, for `--ca-file`.
    package let certificate: String
    private let log: String
    private let process: Process

    /// Makes an auth key in `directory` and starts the mock; returns once it listens.
    /// - Parameter http1: speak HTTP/1.1 only, as a server that is not APNs.
    package init(in directory: TemporaryDirectory, http1: Bool = false) throws {
        let script = PythonPeer.directory.appendingPathComponent("mock_apns.py").path
        authKey = directory.file("AuthKey_\(Self.keyID).p8")
        log = directory.file("mock-requests.jsonl")
        let ready = directory.file("mock-ready.json")
        let python = try PythonPeer.interpreter.get()
        let made = try PythonPeer.run(python.path, [script, "make-key", "--out", authKey])
        guard made.status == 0 else { throw PythonPeer.PeerUnavailable(reason: "make-key: \(made.errors)") }
        process = Process()
        process.executableURL = python
        process.arguments =
            [
                script, "serve", "--auth-key", authKey, "--key-id", Self.keyID, "--team-id", Self.teamID, "--log", log,
                "--ready", ready, "--cert-dir", directory.path, "--lifetime", "300",
            ] + (http1 ? ["--http1"] : [])
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = Pipe()
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: ready) {
            guard Date() < deadline, process.isRunning else {
                process.terminate()
                throw PythonPeer.PeerUnavailable(reason: "the mock APNs did not start")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let info =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: ready))) as? [String: Any]
        url = "https://127.0.0.1:\(info?["port"] as? Int ?? 0)"
        certificate = info?["certificate"] as? String ?? ""
    }

    deinit { stop() }

    /// Stops the mock. SIGKILL, because a child of the test runner inherits its blocked signal
    /// mask, so a SIGTERM would stay pending until the mock's lifetime ran out.
    package func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// The requests the mock received, in arrival order: token, status, reason, jwt (a digest).
    package func requests() -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: log, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The `pushseal send` arguments that reach this mock.
    package var sendArguments: [String] {
        [
            "send", "--auth-key", authKey, "--key-id", Self.keyID, "--team-id", Self.teamID, "--host", url,
            "--ca-file", certificate,
        ]
    }
}

/// The media server of `interop/python/media_server.py`, serving `root`, run for one test.
package final class MediaServer: @unchecked Sendable {
    /// `https://127.0.0.1:PORT`.
    package let url: String
    /// The server's self-signed certificate, for `--ca-file`.
    package let certificate: String
    private let process: Process

    /// Starts the server over `root`; returns once it listens.
    package init(root: String, in directory: TemporaryDirectory) throws {
        let script = PythonPeer.directory.appendingPathComponent("media_server.py").path
        let ready = directory.file("media-ready.json")
        process = Process()
        process.executableURL = try PythonPeer.interpreter.get()
        process.arguments = [script, "serve", "--root", root, "--ready", ready, "--cert-dir", directory.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = Pipe()
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: ready) {
            guard Date() < deadline, process.isRunning else {
                process.terminate()
                throw PythonPeer.PeerUnavailable(reason: "the media server did not start")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let info =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: ready))) as? [String: Any]
        url = "https://127.0.0.1:\(info?["port"] as? Int ?? 0)"
        certificate = info?["certificate"] as? String ?? ""
    }

    deinit { stop() }

    /// Stops the server (SIGKILL, as for the mock APNs).
    package func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
