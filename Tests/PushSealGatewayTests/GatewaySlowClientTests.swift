import Foundation
import PushSealTestSupport
import Testing

/// Slow and greedy clients against `pushseal-gateway` as a process (issue 38, item 2; gateway-v1.md,
/// "Slow and greedy clients"): a legitimate request is answered within a second while they hold
/// on, and the gateway's own connections keep working when its descriptors run short.
@Suite("pushseal-gateway under slow clients", .serialized)
struct GatewaySlowClientTests {
    /// curl's status and time for `GET /healthz`, from `source`, on a connection of its own.
    static func health(_ port: UInt16, from source: String) throws -> (status: Int, seconds: Double) {
        let result = try CLIRunner.run(
            executable: URL(fileURLWithPath: "/usr/bin/curl"),
            [
                "-s", "-o", "/dev/null", "-w", "%{http_code} %{time_total}", "--max-time", "5", "--interface", source,
                "http://127.0.0.1:\(port)/healthz",
            ], input: Data(), in: nil)
        let parts = result.output.split(separator: " ")
        return (Int(parts.first ?? "") ?? 0, Double(parts.last ?? "") ?? 99)
    }

    /// Waits until the gateway runs a thread for each of `connections` and its thread count has
    /// stayed put for a second (the pipelined answers have filled the buffers), 60 s at most.
    static func waitUntilHeld(_ world: GatewayProcessWorld, connections: Int) {
        let deadline = Date().addingTimeInterval(60)
        var last = 0
        var steady = 0
        while Date() < deadline && steady < 4 {
            Thread.sleep(forTimeInterval: 0.25)
            let now = world.threadCount()
            steady = now >= connections && now == last ? steady + 1 : 0
            last = now
        }
    }

    @Test("1,100 trickling connections from one address: the rest of the world is answered within a second")
    func oneAddress() throws {
        let world = try GatewayProcessWorld(extra: #", "http": {"head_seconds": 4}"#)
        try world.start()
        let attack = try SlowClients(count: 1_100, to: world.port, from: ["127.0.0.1"])
        Thread.sleep(forTimeInterval: 0.5)
        #expect(attack.openCount <= 256, "at most connections_per_address from one address: \(attack.openCount)")
        for _ in 0..<3 {
            let answer = try Self.health(world.port, from: "127.0.0.2")
            #expect(answer.status == 200 && answer.seconds < 1, "\(answer)")
            Thread.sleep(forTimeInterval: 0.5)
        }
        // The head's total time, not an idle timeout: a byte every 2 s does not keep it open.
        Thread.sleep(forTimeInterval: 4.5)
        #expect(attack.openCount == 0, "every trickling connection closed after head_seconds: \(attack.openCount)")
    }

    @Test("1,100 trickling connections from 20 addresses fill the server: it sheds them and answers within a second")
    func manyAddresses() throws {
        let world = try GatewayProcessWorld()
        try world.start()
        let sources = (10..<30).map { "127.0.0.\($0)" }
        let attack = try SlowClients(count: 1_100, to: world.port, from: sources)
        Thread.sleep(forTimeInterval: 1.5)
        for _ in 0..<3 {
            let answer = try Self.health(world.port, from: "127.0.0.2")
            #expect(answer.status == 200 && answer.seconds < 1, "\(answer)")
            Thread.sleep(forTimeInterval: 0.3)
        }
        #expect(attack.openCount < 1_024 * 9 / 10, "a crowded server sheds heads older than a second")
        let metrics = try CLIRunner.run(
            executable: URL(fileURLWithPath: "/usr/bin/curl"),
            ["-s", "--interface", "127.0.0.2", "http://127.0.0.1:\(world.port)/metrics"], input: Data(), in: nil)
        #expect(
            metrics.output.contains(#"pushseal_gateway_http_connections_closed_total{cause="crowded"} "#)
                && !metrics.output.contains(#"{cause="crowded"} 0"#), "\(metrics.output.suffix(400))")
    }

    @Test(
        "1,200 trickling heads from four addresses, reopened as they are dropped: a fifth address is answered within a second throughout"
    )
    func fourAddressesReopening() throws {
        let world = try GatewayProcessWorld()
        try world.start()
        let attack = try SlowClients(
            count: 1_200, to: world.port, from: (2...5).map { "127.0.0.\($0)" }, reopen: true)
        defer { withExtendedLifetime(attack) {} }
        Thread.sleep(forTimeInterval: 1.5)
        var answers: [(status: Int, seconds: Double)] = []
        for _ in 0..<24 {
            answers.append(try Self.health(world.port, from: "127.0.0.6"))
            Thread.sleep(forTimeInterval: 0.25)
        }
        let late = answers.filter { $0.status != 200 || $0.seconds >= 1 }
        #expect(late.isEmpty, "\(late.count) of \(answers.count) not answered within a second: \(late.prefix(4))")
        // The pressure was on throughout: the server had to close trickling connections for room.
        let metrics = try CLIRunner.run(
            executable: URL(fileURLWithPath: "/usr/bin/curl"),
            ["-s", "--interface", "127.0.0.6", "http://127.0.0.1:\(world.port)/metrics"], input: Data(), in: nil)
        let crowded = metrics.output.split(separator: "\n").first {
            $0.hasPrefix(#"pushseal_gateway_http_connections_closed_total{cause="crowded"} "#)
        }
        #expect(Int(crowded?.split(separator: " ").last ?? "") ?? 0 > 100, "\(crowded ?? "no crowded closes")")
    }

    @Test(
        "slow readers pipelining on all but a sixteenth of the connections: a new client is answered within a second",
        arguments: [(64, 1), (64, 4), (1_024, 1), (1_024, 4)])
    func pipeliningSlowReaders(connections: Int, addresses: Int) throws {
        // Behind a proxy one address may hold them all; the attack needs no token.
        let world = try GatewayProcessWorld(
            extra: #", "http": {"connections": \#(connections), "connections_per_address": \#(connections)}"#)
        try world.start()
        let attack = try SlowClients(
            count: connections - connections / 16, to: world.port, from: (2..<(2 + addresses)).map { "127.0.0.\($0)" },
            interval: 10, reopen: true, pipeline: "/healthz")
        defer { withExtendedLifetime(attack) {} }
        // Once each attacking connection has its thread, and its unread answers have filled the
        // sockets' buffers: until then the server is busy answering the requests they pipelined.
        Self.waitUntilHeld(world, connections: connections - connections / 16)
        var answers: [(status: Int, seconds: Double)] = []
        for _ in 0..<20 {
            answers.append(try Self.health(world.port, from: "127.0.0.20"))
            Thread.sleep(forTimeInterval: 0.25)
        }
        let late = answers.filter { $0.status != 200 || $0.seconds >= 1 }
        print(
            "pipelining slow readers, \(connections) connections, \(addresses) addresses: the slowest answer took "
                + "\(answers.map(\.seconds).max() ?? 0) s")
        #expect(late.isEmpty, "\(late.count) of \(answers.count) not answered within a second: \(late.prefix(4))")
    }

    @Test("a push uploaded slowly at a steady rate keeps its place while pipelining slow readers crowd the server")
    func steadyUploadKeepsItsPlace() throws {
        let world = try GatewayProcessWorld(extra: #", "http": {"connections": 64, "connections_per_address": 64}"#)
        try world.start()
        let attack = try SlowClients(
            count: 60, to: world.port, from: ["127.0.0.2"], interval: 10, reopen: true, pipeline: "/healthz")
        defer { withExtendedLifetime(attack) {} }
        Self.waitUntilHeld(world, connections: 60)
        // 1,000 device ids, some 45 KB, sent at 5 KB a second: about 9 s of upload.
        let ids = (0..<1_000).map { #""device-\#($0)-\#(String(repeating: "x", count: 24))""# }
        let body = #"{"to":{"devices":[\#(ids.joined(separator: ","))]},"payload":{"aps":{"alert":"hi"}}}"#
        let bodyFile = try world.directory.write("push.json", body)
        let uploaded = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var status = ""
        let (port, token) = (world.port, world.token)
        Thread.detachNewThread {
            status =
                (try? CLIRunner.run(
                    executable: URL(fileURLWithPath: "/usr/bin/curl"),
                    [
                        "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "40", "--limit-rate", "5K",
                        "--interface", "127.0.0.30", "-X", "POST", "-H", "Authorization: Bearer \(token)",
                        "-H", "Content-Type: application/json", "--data-binary", "@\(bodyFile)",
                        "http://127.0.0.1:\(port)/v1/pushes",
                    ], input: Data(), in: nil
                ).output) ?? ""
            uploaded.signal()
        }
        // Meanwhile new clients keep arriving, each needing a place.
        var answers: [Int] = []
        while uploaded.wait(timeout: .now() + 0.3) == .timedOut {
            answers.append(try Self.health(world.port, from: "127.0.0.20").status)
        }
        #expect(status == "202", "the slow upload was answered: \(status)")
        #expect(answers.count > 10 && answers.allSatisfy { $0 == 200 }, "\(answers)")
    }

    @Test(
        "an error answer echoes a bounded part of the request: an 8 KB path, a 20 KB member name; a 28 KB path is 414")
    func boundedErrorAnswers() throws {
        let world = try GatewayProcessWorld()
        try world.start()
        for (length, status) in [(8_000, 404), (28_000, 414)] {
            let path = "/" + String(repeating: "a", count: length)
            let missing = try #require(
                try GatewayHTTP.send("GET", "http://127.0.0.1:\(world.port)\(path)", body: nil, contentType: nil))
            #expect(
                missing.status == status && missing.body.count < 1_024, "\(missing.status), \(missing.body.count) B")
        }
        // A member's name is echoed in the message and the path: 20 KB of it.
        let name = String(repeating: "m", count: 20_000)
        let unknown = try #require(
            try GatewayHTTP.send(
                "POST", "http://127.0.0.1:\(world.port)/v1/pushes",
                body: Data(#"{"to":{"user":"u"},"payload":{"aps":{"alert":"hi"}},"\#(name)":1}"#.utf8),
                token: world.token))
        #expect(unknown.status == 400 && unknown.body.count < 2_048, "\(unknown.status), \(unknown.body.count) bytes")
    }

    @Test("a request being answered is never closed to make room: a test push waiting on a late APNs gets its answer")
    func answeringKeepsItsPlace() throws {
        let world = try GatewayProcessWorld(apnsDelayMilliseconds: 3_000)
        try world.start()
        #expect(try world.registerDevice() == 201)
        let answered = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var status = ""
        let port = world.port
        let token = world.token
        Thread.detachNewThread {
            status =
                (try? CLIRunner.run(
                    executable: URL(fileURLWithPath: "/usr/bin/curl"),
                    [
                        "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10", "--interface", "127.0.0.2",
                        "-X", "POST", "-H", "Authorization: Bearer \(token)", "-H", "Content-Type: application/json",
                        "--data", "{}", "http://127.0.0.1:\(port)/v1/devices/phone/test",
                    ], input: Data(), in: nil
                ).output) ?? ""
            answered.signal()
        }
        Thread.sleep(forTimeInterval: 0.5)  // the request is in, the oldest connection, waiting for APNs
        let attack = try SlowClients(
            count: 1_200, to: world.port, from: (10..<30).map { "127.0.0.\($0)" }, reopen: true)
        defer { withExtendedLifetime(attack) {} }
        #expect(answered.wait(timeout: .now() + 15) == .success)
        #expect(status == "200", "the test push was answered with its delivery: \(status)")
    }

    @Test("with 300 descriptors and 400 connections held, the workers still reach APNs and the database")
    func descriptorLimit() throws {
        let world = try GatewayProcessWorld()
        try world.start(openFiles: 300)
        let sources = (10..<18).map { "127.0.0.\($0)" }
        let attack = try SlowClients(count: 400, to: world.port, from: sources)
        defer { withExtendedLifetime(attack) {} }
        Thread.sleep(forTimeInterval: 0.5)
        #expect(try world.registerDevice() == 201)
        #expect(try world.send("POST", "/v1/pushes", #"{"to":{"user":"u"},"payload":{"aps":{"alert":"hi"}}}"#) == 202)
        let deadline = Date().addingTimeInterval(15)
        while world.apns.requests().isEmpty && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        #expect(world.apns.requests().count == 1, "delivered while the connections are held")
        let log = (try? String(contentsOfFile: world.directory.file("gateway-0.log"), encoding: .utf8)) ?? ""
        #expect(log.contains(#""http_connections":"#), "the limit in force is logged")
        #expect(!log.contains("store-error") && !log.contains("apns-error"), "\(log.suffix(600))")
    }
}
