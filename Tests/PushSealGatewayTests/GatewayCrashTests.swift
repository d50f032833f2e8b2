import Foundation
import PushSealCore
import PushSealGatewayModel
import PushSealGatewayStorage
import PushSealTestSupport
import Testing

@testable import PushSealGateway

/// The gateway as a process: a crash loses no accepted push, and SIGTERM stops it cleanly.
@Suite("pushseal-gateway crash safety", .serialized)
struct GatewayCrashTests {
    /// `pushseal-gateway` is killed with SIGKILL at random moments while 2,000 pushes are accepted
    /// and delivered, restarted each time, and every accepted push reaches the mock APNs (counted
    /// by `event_id` after decryption); repeats happen only for deliveries in flight at a kill,
    /// and are counted.
    @Test("SIGKILL at random moments: every accepted push is delivered after a restart")
    func killedGateway() throws {
        let world = try GatewayProcessWorld(extra: #", "workers": 2, "lease_seconds": 5"#)
        try world.start()
        #expect(try world.registerDevice() == 201)
        var accepted = Set<String>()
        var kills = 0
        var generator = SystemRandomNumberGenerator()
        var nextKill = Int.random(in: 200...600, using: &generator)
        for index in 0..<2_000 {
            let eventID = "event-\(index)"
            let status = try world.send(
                "POST", "/v1/pushes",
                #"{"to":{"devices":["phone"]},"payload":{"aps":{"alert":"n \#(index)"},"event_id":"\#(eventID)"}}"#)
            if status == 202 { accepted.insert(eventID) }
            if index == nextKill {
                world.kill(SIGKILL)
                kills += 1
                try world.start()
                nextKill += Int.random(in: 200...600, using: &generator)
            }
        }
        // One more kill while the outbox drains.
        Thread.sleep(forTimeInterval: Double.random(in: 0.05...0.5, using: &generator))
        world.kill(SIGKILL)
        kills += 1
        try world.start()
        let store = try SQLiteGatewayStore(path: world.directory.file("gateway.db"))
        let drained = (0..<600).contains { _ in
            Thread.sleep(forTimeInterval: 0.1)
            return (try? store.statistics().deliveries[.queued] ?? 0) == 0
        }
        #expect(drained, "the outbox drains after the restarts")

        let bodies = world.apns.requests().filter { $0["status"] as? Int == 200 }.compactMap { $0["body"] as? String }
        let opened = try CLIRunner.run(
            ["decrypt", "--store", "store", "--json-lines"], input: Data(bodies.joined(separator: "\n").utf8),
            in: world.directory.path)
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
        #expect(
            repeats <= kills * (DeliveryWorkers.streams + DeliveryWorkers.claimSize) * 2,
            "repeats only for deliveries in flight at a kill")
    }

    @Test("SIGTERM stops accepting, finishes the batches in flight, and exits 0; what is left stays queued")
    func gracefulStop() throws {
        let world = try GatewayProcessWorld()
        try world.start(blocking: [SIGTERM])
        #expect(try world.registerDevice() == 201)
        for index in 0..<200 {
            _ = try world.send("POST", "/v1/pushes", #"{"to":{"user":"u"},"payload":{"aps":{"alert":"n \#(index)"}}}"#)
        }
        world.signal(SIGTERM)
        #expect(world.waitForExit(seconds: 30), "stopped within 30 s, though started with SIGTERM blocked")
        world.kill(SIGKILL)
        let status = try #require(world.exitStatus)
        #expect(status & 0x7F == 0 && (status >> 8) & 0xFF == 0, "exited with status 0, not by a signal")
        #expect(try world.send("GET", "/healthz") == nil, "no longer listening")
        let statistics = try SQLiteGatewayStore(path: world.directory.file("gateway.db")).statistics()
        let sent = statistics.deliveries[.sent] ?? 0
        let queued = statistics.deliveries[.queued] ?? 0
        #expect(sent + queued == 200, "every delivery is sent or still queued: \(statistics.deliveries)")
        #expect(world.apns.requests().count >= sent, "what is marked sent reached APNs")
    }
}
