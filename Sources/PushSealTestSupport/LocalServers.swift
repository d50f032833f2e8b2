import Foundation

/// A Python server of `interop/python` run for one test: started, waited for until it writes
/// its ready file (port and certificate), stopped after.
package final class LocalServer: @unchecked Sendable {
    /// `https://127.0.0.1:PORT`.
    package let url: String
    /// The server's self-signed certificate, for `--ca-file`.
    package let certificate: String
    private let process: Process
    private let ready: [String: Any]

    /// Runs `script arguments… --ready READY --cert-dir DIR` and returns once it listens.
    package init(script name: String, _ arguments: [String], in directory: TemporaryDirectory) throws {
        let ready = directory.file("\(name)-ready.json")
        process = Process()
        process.executableURL = try PythonPeer.interpreter.get()
        process.arguments =
            [PythonPeer.directory.appendingPathComponent(name).path] + arguments + [
                "--ready", ready, "--cert-dir", directory.path,
            ]
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = Pipe()
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: ready) {
            guard Date() < deadline, process.isRunning else {
                process.terminate()
                throw PythonPeer.PeerUnavailable(reason: "\(name) did not start")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        self.ready =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: ready))) as? [String: Any]
            ?? [:]
        url = "https://127.0.0.1:\(self.ready["port"] as? Int ?? 0)"
        certificate = self.ready["certificate"] as? String ?? ""
    }

    /// Another value the server wrote in its ready file (media_server.py's `wrong_name_port`).
    package func readyValue(_ key: String) -> Any? { ready[key] }

    deinit { stop() }

    /// Stops the server. SIGKILL, because a child of the test runner inherits its blocked signal
    /// mask, so a SIGTERM would stay pending until the server's lifetime ran out.
    package func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// The mock APNs of `interop/python/mock_apns.py`.
package final class MockAPNs: @unchecked Sendable {
    /// The key id the mock expects in provider tokens.
    package static let keyID = "KEY1234567"
    /// The team id.
    package static let teamID = "TEAM123456"

    /// The `.p8` auth key (a fresh P-256 key) the mock verifies tokens against.
    package let authKey: String
    /// The `.p8` files of the keys of `otherKeys`, by key id.
    package let otherAuthKeys: [String: String]
    private let log: String
    private let server: LocalServer

    /// `https://127.0.0.1:PORT`.
    package var url: String { server.url }
    /// The mock's self-signed certificate, for `--ca-file`.
    package var certificate: String { server.certificate }

    /// Makes an auth key in `directory` and starts the mock; returns once it listens.
    /// - Parameters:
    ///   - http1: speak HTTP/1.1 only, as a server that is not APNs.
    ///   - delayMilliseconds: answer each request this late, as APNs across the internet does.
    ///   - jitterMilliseconds: and up to this much later again, at random, so that answers come
    ///     back in another order than their requests went.
    ///   - maximumConcurrentStreams: the mock's SETTINGS_MAX_CONCURRENT_STREAMS (100 unless given).
    ///   - goAwayAfter: send GOAWAY after this many requests of each connection.
    ///   - lateWindowCredit: credit request bodies back to the connection window only when answering.
    ///   - silentAfter: on the first connection, after this many requests, read and answer nothing more.
    ///   - otherKeys: more keys the mock knows beside ``keyID``, each of ``teamID``, with the topics
    ///     it may sign for (nil: a team key); each gets a fresh `.p8` in ``otherAuthKeys``.
    package init(
        in directory: TemporaryDirectory, http1: Bool = false, delayMilliseconds: Int = 0, jitterMilliseconds: Int = 0,
        maximumConcurrentStreams: Int? = nil, goAwayAfter: Int? = nil, lateWindowCredit: Bool = false,
        silentAfter: Int? = nil, otherKeys: [(keyID: String, topics: [String]?)] = []
    ) throws {
        var options = http1 ? ["--http1"] : []
        if delayMilliseconds > 0 { options += ["--delay-ms", "\(delayMilliseconds)"] }
        if jitterMilliseconds > 0 { options += ["--jitter-ms", "\(jitterMilliseconds)"] }
        if let maximumConcurrentStreams { options += ["--max-concurrent-streams", "\(maximumConcurrentStreams)"] }
        if let goAwayAfter { options += ["--goaway-after", "\(goAwayAfter)"] }
        if lateWindowCredit { options += ["--late-window-credit"] }
        if let silentAfter { options += ["--silent-after", "\(silentAfter)"] }
        authKey = try Self.makeAuthKey(directory.file("AuthKey_\(Self.keyID).p8"))
        var otherAuthKeys: [String: String] = [:]
        for (keyID, topics) in otherKeys {
            let path = try Self.makeAuthKey(directory.file("AuthKey_\(keyID).p8"))
            otherAuthKeys[keyID] = path
            options += ["--also-key", keyID, Self.teamID, path]
            if let topics { options += ["--key-topics", keyID, topics.joined(separator: ",")] }
        }
        self.otherAuthKeys = otherAuthKeys
        log = directory.file("mock-requests.jsonl")
        server = try LocalServer(
            script: "mock_apns.py",
            [
                "serve", "--auth-key", authKey, "--key-id", Self.keyID, "--team-id", Self.teamID, "--log", log,
                "--lifetime", "300",
            ] + options, in: directory)
    }

    /// Stops the mock.
    package func stop() { server.stop() }

    /// Writes a fresh `.p8` auth key (a P-256 key) at `path`; the path.
    package static func makeAuthKey(_ path: String) throws -> String {
        let python = try PythonPeer.interpreter.get()
        let script = PythonPeer.directory.appendingPathComponent("mock_apns.py").path
        let made = try PythonPeer.run(python.path, [script, "make-key", "--out", path])
        guard made.status == 0 else { throw PythonPeer.PeerUnavailable(reason: "make-key: \(made.errors)") }
        return path
    }

    /// The requests the mock answered, in arrival order: token, status, reason, jwt (a digest),
    /// kid, at (UNIX seconds), streams_open, connection.
    package func requests() -> [[String: Any]] { logLines().filter { $0["violation"] == nil } }

    /// The HTTP/2 rules a client broke, as the mock's h2 library named them (more streams than
    /// the mock's limit, say); each cost the client its connection.
    package func violations() -> [String] { logLines().compactMap { $0["violation"] as? String } }

    private func logLines() -> [[String: Any]] {
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

/// The media server of `interop/python/media_server.py`, serving `root`.
package typealias MediaServer = LocalServer

extension LocalServer {
    /// Starts `media_server.py` over `root`.
    package convenience init(mediaRoot root: String, in directory: TemporaryDirectory) throws {
        try self.init(script: "media_server.py", ["serve", "--root", root], in: directory)
    }
}

/// The misbehaving HTTP/2 server of `interop/python/hostile_h2.py`, in one of its modes
/// (`no-streams`, `zero-after-first`, `deaf`, `header-flood`, `push-promise`, `unopened-headers`).
package final class HostileHTTP2Server: @unchecked Sendable {
    private let server: LocalServer
    private let log: String
    /// A `.p8` auth key for `send` (the server checks no token).
    package let authKey: String

    /// Starts the server in `mode`; returns once it listens.
    package init(mode: String, in directory: TemporaryDirectory) throws {
        log = directory.file("hostile-\(mode).jsonl")
        authKey = try MockAPNs.makeAuthKey(directory.file("AuthKey_hostile.p8"))
        server = try LocalServer(script: "hostile_h2.py", ["--mode", mode, "--log", log], in: directory)
    }

    /// Stops the server.
    package func stop() { server.stop() }

    /// `https://127.0.0.1:PORT`.
    package var url: String { server.url }
    /// The server's self-signed certificate.
    package var certificate: String { server.certificate }

    /// How many requests the server saw end.
    package var requestCount: Int {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").count
    }

    /// The `pushseal send` arguments that reach this server.
    package var sendArguments: [String] {
        [
            "send", "--auth-key", authKey, "--key-id", MockAPNs.keyID, "--team-id", MockAPNs.teamID, "--host",
            server.url, "--ca-file", server.certificate,
        ]
    }
}

/// The mock Web Push service of `interop/python/mock_push_service.py`: it checks each request's
/// RFC 8030 headers and VAPID token, decrypts the message with the receiver's keys, and answers
/// as the endpoint's path scripts (`/push/ok/…`, `/push/gone/…`, …).
package final class MockPushService: @unchecked Sendable {
    private let server: LocalServer
    private let log: String

    /// Starts the mock, decrypting with the receiver keys in `receiverFile` (webpush-v1.md's JSON
    /// form) and, when given, accepting only tokens whose `k` is `vapidPublicKey`; with `http1`, it
    /// speaks HTTP/1.1 only (closing a connection idle for `idleCloseMilliseconds`, when given);
    /// `maximumStreams` limits an HTTP/2 connection's concurrent streams; with `alsoListen` N, it
    /// is N more origins, on 127.0.0.2 to 127.0.0.(N + 1) (``endpoint(_:_:address:)``).
    package init(
        receiverFile: String, vapidPublicKey: String? = nil, slowMilliseconds: Int? = nil, http1: Bool = false,
        idleCloseMilliseconds: Int? = nil, maximumStreams: Int? = nil, alsoListen: Int = 0,
        in directory: TemporaryDirectory
    ) throws {
        log = directory.file(http1 ? "mock-push-http1-requests.jsonl" : "mock-push-requests.jsonl")
        var options = ["serve", "--receiver", receiverFile, "--log", log, "--lifetime", "300"]
        if http1 { options.append("--http1") }
        if let idleCloseMilliseconds { options += ["--idle-close-ms", "\(idleCloseMilliseconds)"] }
        if let maximumStreams { options += ["--max-streams", "\(maximumStreams)"] }
        if let vapidPublicKey { options += ["--vapid-public-key", vapidPublicKey] }
        if let slowMilliseconds { options += ["--slow-ms", "\(slowMilliseconds)"] }
        if alsoListen > 0 { options += ["--also-listen", "\(alsoListen)"] }
        server = try LocalServer(script: "mock_push_service.py", options, in: directory)
    }

    /// `https://127.0.0.1:PORT`.
    package var url: String { server.url }
    /// The mock's self-signed certificate.
    package var certificate: String { server.certificate }

    /// The mock's log: one JSON line per request (see `requests()`), for a process that reads it.
    package var logFile: String { log }

    /// An endpoint on this mock that answers as `script` says.
    package func endpoint(_ script: String, _ name: String = RandomName.make()) -> String {
        "\(server.url)/push/\(script)/\(name)"
    }

    /// An endpoint at the origin `https://127.0.0.<address>:PORT` of this mock (2 to its
    /// `alsoListen` + 1), which answers as `script` says.
    package func endpoint(_ script: String, _ name: String, address: Int) -> String {
        endpoint(script, name).replacingOccurrences(of: "https://127.0.0.1:", with: "https://127.0.0.\(address):")
    }

    /// Stops the mock.
    package func stop() { server.stop() }

    /// The requests the mock answered, in arrival order: path, status, ttl, urgency, topic,
    /// vapid (the token's claims), content (the decrypted message, base64url), connection.
    package func requests() -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: log, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }
}

/// Short random names for test endpoints.
package enum RandomName {
    /// Twelve random lower-case letters.
    package static func make() -> String {
        String((0..<12).map { _ in "abcdefghijklmnopqrstuvwxyz".randomElement() ?? "a" })
    }
}

/// The webhook receiver of `interop/python/webhook_receiver.py`: it verifies every message with
/// PyPI's `standardwebhooks` under each of its secrets, and answers as the path scripts
/// (`/hooks/ok/…`, `/hooks/fail/N/…`, `/hooks/down/…`, `/hooks/huge/…`).
package final class WebhookReceiver: @unchecked Sendable {
    private let server: LocalServer
    private let log: String

    /// How the receiver treats its connections.
    package enum Connections: Sendable {
        /// Kept alive for as long as the client keeps them.
        case keptAlive
        /// Python's stock `http.server`: an `HTTP/1.0` answer, then the connection closed.
        case stockHTTP10
        /// Kept alive, and closed after this many idle seconds.
        case idleTimeout(Double)
    }

    /// Starts the receiver, verifying with each of `secrets` (`whsec_…`) on its own; its `slow`
    /// script answers after `slowSeconds`.
    package init(
        secrets: [String], connections: Connections = .keptAlive, slowSeconds: Double = 3,
        in directory: TemporaryDirectory
    ) throws {
        log = directory.file("webhook-requests.jsonl")
        var options = ["--log", log, "--slow-seconds", "\(slowSeconds)"] + secrets.flatMap { ["--secret", $0] }
        switch connections {
        case .keptAlive: break
        case .stockHTTP10: options.append("--http10")
        case .idleTimeout(let seconds): options += ["--idle-timeout", "\(seconds)"]
        }
        server = try LocalServer(script: "webhook_receiver.py", options, in: directory)
    }

    /// The receiver's self-signed certificate.
    package var certificate: String { server.certificate }

    /// A URL on this receiver that answers as `script` says (`ok`, `fail/2`, `down`).
    package func url(_ script: String, _ name: String = RandomName.make()) -> String {
        "\(server.url)/hooks/\(script)/\(name)"
    }

    /// Stops the receiver.
    package func stop() { server.stop() }

    /// The requests received, in arrival order: path, status, headers (the three webhook ones),
    /// verified (the indices of the secrets that verify it), body (parsed).
    package func requests() -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: log, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }
}
