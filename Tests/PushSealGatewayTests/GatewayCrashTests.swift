import Foundation
import PushSealCore
import PushSealTestSupport
import Testing

@testable import PushSealGateway

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A crash loses no accepted push: `pushseal-gateway` is killed with SIGKILL at random moments
/// while 2,000 pushes are accepted and delivered, restarted each time, and every accepted push
/// reaches the mock APNs (counted by `event_id` after decryption); repeats happen only for
/// deliveries in flight at a kill, and are counted.
@Suite("pushseal-gateway crash safety", .serialized)
struct GatewayCrashTests {
    static let executable = CLIRunner.executable.deletingLastPathComponent().appendingPathComponent("pushseal-gateway")

    @Test("SIGKILL at random moments: every accepted push is delivered after a restart")
    func killedGateway() throws {
        let directory = TemporaryDirectory()
        let apns = try MockAPNs(in: directory)
        defer { apns.stop() }
        _ = try CLIRunner.run(["keys", "generate", "--suite", "x25519", "--out", "sender.jwk"], in: directory.path)
        let port = try Self.freePort()
        _ = try directory.write(
            "gateway.json",
            """
            {"listen": "127.0.0.1:\(port)", "database": "sqlite:gateway.db", "sender_key_files": ["sender.jwk"],
             "apns": {"auth_key_file": "\(apns.authKey)", "key_id": "\(MockAPNs.keyID)", "team_id": "\(MockAPNs.teamID)",
                      "topics": ["com.example.shop"], "hosts": {"production": "\(apns.url)"}, "ca_file": "\(apns.certificate)"},
             "workers": 2, "lease_seconds": 5}
            """)
        let made = try CLIRunner.run(
            executable: Self.executable, ["token", "create", "--config", "gateway.json", "--scope", "admin"],
            input: Data(),
            in: directory.path)
        #expect(made.status == 0, "\(made.errors)")
        let token = made.output.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try CLIRunner.run(["keys", "init", "--store", "store"], in: directory.path)
        let key = try CLIRunner.run(["keys", "rotate", "--store", "store"], in: directory.path).output
        let sender = try CLIRunner.run(["keys", "public", "sender.jwk"], in: directory.path).output
        _ = try CLIRunner.run(
            ["keys", "import", "--store", "store", "--sender"], input: Data(sender.utf8), in: directory.path)
        let client = Client(port: port, token: token)

        var gateway = try Self.start(directory, client)
        let register = try client.send(
            "PUT", "/v1/devices/phone",
            #"{"user":"u","token":"\#(GatewayWorld.deviceToken("00aa", 1))","topic":"com.example.shop","environment":"production","key":\#(key)}"#
        )
        #expect(register == 201)
        var accepted = Set<String>()
        var kills = 0
        var generator = SystemRandomNumberGenerator()
        var nextKill = Int.random(in: 200...600, using: &generator)
        for index in 0..<2_000 {
            let eventID = "event-\(index)"
            let status = try client.send(
                "POST", "/v1/pushes",
                #"{"to":{"devices":["phone"]},"payload":{"aps":{"alert":"n \#(index)"},"event_id":"\#(eventID)"}}"#)
            if status == 202 { accepted.insert(eventID) }
            if index == nextKill {
                kill(gateway.processIdentifier, SIGKILL)
                gateway.waitUntilExit()
                kills += 1
                gateway = try Self.start(directory, client)
                nextKill += Int.random(in: 200...600, using: &generator)
            }
        }
        // One more kill while the outbox drains.
        Thread.sleep(forTimeInterval: Double.random(in: 0.05...0.5, using: &generator))
        kill(gateway.processIdentifier, SIGKILL)
        gateway.waitUntilExit()
        kills += 1
        gateway = try Self.start(directory, client)
        defer {
            kill(gateway.processIdentifier, SIGKILL)
            gateway.waitUntilExit()
        }
        let store = try SQLiteGatewayStore(path: directory.file("gateway.db"))
        let drained = (0..<600).contains { _ in
            Thread.sleep(forTimeInterval: 0.1)
            return (try? store.statistics().deliveries[.queued] ?? 0) == 0
        }
        #expect(drained, "the outbox drains after the restarts")

        let bodies = apns.requests().filter { $0["status"] as? Int == 200 }.compactMap { $0["body"] as? String }
        let opened = try CLIRunner.run(
            ["decrypt", "--store", "store", "--json-lines"], input: Data(bodies.joined(separator: "\n").utf8),
            in: directory.path)
        var delivered: [String: Int] = [:]
        for line in opened.output.split(separator: "\n") {
            let result = try JSONParser.parse(String(line)).objectValue
            if let eventID = result?["notification"]?.objectValue?["userInfo"]?.objectValue?["event_id"]?.stringValue {
                delivered[eventID, default: 0] += 1
            }
        }
        let missing = accepted.subtracting(delivered.keys)
        let repeats = delivered.values.reduce(0) { $0 + $1 - 1 }
        print(
            "gateway crash safety: \(accepted.count) accepted, \(kills) kills, \(missing.count) lost, \(repeats) repeats"
        )
        #expect(accepted.count >= 1_900, "most requests were answered")
        let lost = missing.count
        #expect(lost == 0, "lost, for example: \(missing.sorted().prefix(10))")
        #expect(repeats <= kills * DeliveryWorkers.batchSize * 2, "repeats only for deliveries in flight at a kill")
    }

    @Test("SIGTERM stops accepting, finishes the batches in flight, and exits 0; what is left stays queued")
    func gracefulStop() throws {
        let directory = TemporaryDirectory()
        let apns = try MockAPNs(in: directory)
        defer { apns.stop() }
        _ = try CLIRunner.run(["keys", "generate", "--suite", "x25519", "--out", "sender.jwk"], in: directory.path)
        let port = try Self.freePort()
        _ = try directory.write(
            "gateway.json",
            """
            {"listen": "127.0.0.1:\(port)", "database": "sqlite:gateway.db", "sender_key_files": ["sender.jwk"],
             "apns": {"auth_key_file": "\(apns.authKey)", "key_id": "\(MockAPNs.keyID)", "team_id": "\(MockAPNs.teamID)",
                      "topics": ["com.example.shop"], "hosts": {"production": "\(apns.url)"}, "ca_file": "\(apns.certificate)"}}
            """)
        let made = try CLIRunner.run(
            executable: Self.executable, ["token", "create", "--config", "gateway.json", "--scope", "admin"],
            input: Data(), in: directory.path)
        let client = Client(port: port, token: made.output.trimmingCharacters(in: .whitespacesAndNewlines))
        _ = try CLIRunner.run(["keys", "init", "--store", "store"], in: directory.path)
        let key = try CLIRunner.run(["keys", "rotate", "--store", "store"], in: directory.path).output
        let gateway = try Self.start(directory, client)
        #expect(
            try client.send(
                "PUT", "/v1/devices/phone",
                #"{"user":"u","token":"\#(GatewayWorld.deviceToken("00aa", 1))","topic":"com.example.shop","environment":"production","key":\#(key)}"#
            )
                == 201)
        for index in 0..<200 {
            _ = try client.send(
                "POST", "/v1/pushes", #"{"to":{"user":"u"},"payload":{"aps":{"alert":"n \#(index)"}}}"#)
        }
        kill(gateway.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(30)
        while gateway.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(!gateway.isRunning, "stopped within 30 s")
        if gateway.isRunning { kill(gateway.processIdentifier, SIGKILL) }
        gateway.waitUntilExit()
        #expect(gateway.terminationReason == .exit && gateway.terminationStatus == 0)
        #expect(try client.send("GET", "/healthz", nil) == nil, "no longer listening")
        let statistics = try SQLiteGatewayStore(path: directory.file("gateway.db")).statistics()
        let sent = statistics.deliveries[.sent] ?? 0
        let queued = statistics.deliveries[.queued] ?? 0
        #expect(sent + queued == 200, "every delivery is sent or still queued: \(statistics.deliveries)")
        #expect(apns.requests().count >= sent, "what is marked sent reached APNs")
    }

    /// Starts the executable and waits until it answers `/healthz`.
    static func start(_ directory: TemporaryDirectory, _ client: Client) throws -> Process {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["serve", "--config", "gateway.json"]
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        for _ in 0..<200 {
            if try client.send("GET", "/healthz", nil) == 200 { return process }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw GatewayError("the gateway did not start")
    }

    /// A port nobody listens on now.
    static func freePort() throws -> UInt16 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let port: UInt16? = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                guard bind(socket, pointer, length) == 0, getsockname(socket, pointer, &length) == 0 else { return nil }
                return UInt16(bigEndian: UnsafeRawPointer(pointer).load(fromByteOffset: 2, as: UInt16.self))
            }
        }
        return try #require(port)
    }

    /// A minimal client: method, path, JSON body; the status.
    struct Client {
        let port: UInt16
        let token: String

        /// The status, or nil when no answer came (the gateway was killed).
        func send(_ method: String, _ path: String, _ body: String?) throws -> Int? {
            var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)\(path)")))
            request.httpMethod = method
            request.timeoutInterval = 5
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            if let body {
                request.httpBody = Data(body.utf8)
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
            let done = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var status: Int?
            URLSession.shared.dataTask(with: request) { _, response, _ in
                status = (response as? HTTPURLResponse)?.statusCode
                done.signal()
            }.resume()
            done.wait()
            return status
        }
    }
}
