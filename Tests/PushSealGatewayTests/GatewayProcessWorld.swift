import Foundation
import PushSealCore
import PushSealGatewayModel
import PushSealGatewayStorage
import PushSealTestSupport
import Testing

@testable import PushSealGateway

/// `pushseal-gateway` as separate processes, the way an operator runs it: a mock APNs, a sender
/// key, one configuration per instance on a free port (all on one database), an admin token made
/// by `token create`, and a device store that trusts the sender, registered as device `phone` of
/// user `u` once a gateway runs. The processes and the mock are stopped when the world goes
/// away, whatever the test did.
final class GatewayProcessWorld {
    static let executable = CLIRunner.executable.deletingLastPathComponent().appendingPathComponent("pushseal-gateway")

    let directory = TemporaryDirectory()
    let apns: MockAPNs
    /// Each instance's port.
    let ports: [UInt16]
    let token: String
    /// The device's public JWK.
    let deviceKey: String
    /// The configuration's `database`.
    let database: String
    /// Each running instance's process id.
    private var pids: [Int: pid_t] = [:]
    /// How the last gateway ended: its `waitpid` status.
    private(set) var exitStatus: Int32?

    /// The first instance's port.
    var port: UInt16 { ports[0] }

    /// - Parameters:
    ///   - extra: more members of the configuration (`"workers": 2`).
    ///   - database: the configuration's `database`.
    ///   - instances: how many gateways share it (each on its own port, started one by one).
    ///   - apnsDelayMilliseconds: how late the mock APNs answers.
    init(
        extra: String = "", database: String = "sqlite:gateway.db", instances: Int = 1, apnsDelayMilliseconds: Int = 0,
        apnsJitterMilliseconds: Int = 0
    ) throws {
        apns = try MockAPNs(
            in: directory, delayMilliseconds: apnsDelayMilliseconds, jitterMilliseconds: apnsJitterMilliseconds)
        self.database = database
        _ = try CLIRunner.run(["keys", "generate", "--suite", "x25519", "--out", "sender.jwk"], in: directory.path)
        ports = try (0..<instances).map { _ in try ChildProcess.freeLoopbackPort() }
        for (instance, port) in ports.enumerated() {
            _ = try directory.write(
                Self.configuration(instance),
                """
                {"listen": "127.0.0.1:\(port)", "database": "\(database)", "sender_key_files": ["sender.jwk"],
                 "apns": {"auth_key_file": "\(apns.authKey)", "key_id": "\(MockAPNs.keyID)", "team_id": "\(MockAPNs.teamID)",
                          "topics": ["com.example.shop"], "hosts": {"production": "\(apns.url)"}, "ca_file": "\(apns.certificate)"}\(extra)}
                """)
        }
        let made = try CLIRunner.run(
            executable: Self.executable, ["token", "create", "--config", "gateway.json", "--scope", "admin"],
            input: Data(), in: directory.path)
        #expect(made.status == 0, "\(made.errors)")
        token = made.output.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try CLIRunner.run(["keys", "init", "--store", "store"], in: directory.path)
        deviceKey = try CLIRunner.run(["keys", "rotate", "--store", "store"], in: directory.path).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let sender = try CLIRunner.run(["keys", "public", "sender.jwk"], in: directory.path).output
        _ = try CLIRunner.run(
            ["keys", "import", "--store", "store", "--sender"], input: Data(sender.utf8), in: directory.path)
    }

    deinit {
        for instance in ports.indices { kill(SIGKILL, instance: instance) }
        apns.stop()
    }

    /// The configuration file of `instance`.
    static func configuration(_ instance: Int) -> String {
        instance == 0 ? "gateway.json" : "gateway-\(instance).json"
    }

    /// Starts the gateway and waits until it answers `/healthz`.
    /// - Parameters:
    ///   - blocked: signals blocked in the child from the start, as a careless parent (a
    ///     supervisor, a test runner) may leave them.
    ///   - openFiles: the gateway's limit on open files (`prlimit --nofile`), when not the tests'.
    func start(blocking blocked: [Int32] = [], instance: Int = 0, openFiles: Int? = nil) throws {
        let limit = openFiles.map { ["/usr/bin/prlimit", "--nofile=\($0):\($0)", "--"] } ?? []
        let child = try ChildProcess.start(
            limit + [Self.executable.path, "serve", "--config", directory.file(Self.configuration(instance))],
            errors: directory.file("gateway-\(instance).log"), blocking: blocked)
        pids[instance] = child
        for _ in 0..<200 {
            if try send("GET", "/healthz", instance: instance) == 200 { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let log = (try? String(contentsOfFile: directory.file("gateway-\(instance).log"), encoding: .utf8)) ?? ""
        throw GatewayError("the gateway did not start: \(log.suffix(500))")
    }

    /// How many threads the gateway `instance` runs now (one per HTTP connection, beside its
    /// workers); 0 when it does not run.
    func threadCount(instance: Int = 0) -> Int {
        guard let pid = pids[instance] else { return 0 }
        return (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count) ?? 0
    }

    /// Sends `signal` to the gateway `instance`, if it runs.
    func signal(_ signal: Int32, instance: Int = 0) {
        if let pid = pids[instance] { Glibc.kill(pid, signal) }
    }

    /// Waits at most `seconds` for the gateway `instance` to end; whether it did.
    func waitForExit(seconds: Double, instance: Int = 0) -> Bool {
        guard let child = pids[instance] else { return true }
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            var status: Int32 = 0
            if waitpid(child, &status, WNOHANG) == child {
                exitStatus = status
                pids[instance] = nil
                return true
            }
            Thread.sleep(forTimeInterval: 0.02)
        } while Date() < deadline
        return false
    }

    /// Sends `signal` to the gateway `instance`, if it runs, and waits for it to end.
    func kill(_ signal: Int32, instance: Int = 0) {
        self.signal(signal, instance: instance)
        _ = waitForExit(seconds: 60, instance: instance)
    }

    /// Registers the device `phone` of user `u`; the status.
    func registerDevice() throws -> Int? {
        try send(
            "PUT", "/v1/devices/phone",
            #"{"user":"u","token":"\#(GatewayWorld.deviceToken("00aa", 1))","topic":"com.example.shop","environment":"production","key":\#(deviceKey)}"#
        )
    }

    /// The JSON lines the gateway `instance` wrote to standard error so far.
    func logLines(instance: Int = 0) -> [JSONObject] {
        let text = (try? String(contentsOfFile: directory.file("gateway-\(instance).log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONParser.parse(Array($0.utf8)).objectValue }
    }

    /// Sends a request with the admin token to `instance`; the status, or nil when no answer came.
    func send(_ method: String, _ path: String, _ body: String? = nil, instance: Int = 0) throws -> Int? {
        try GatewayHTTP.send(
            method, "http://127.0.0.1:\(ports[instance])\(path)", body: body.map { Data($0.utf8) }, token: token)?
            .status
    }
}
