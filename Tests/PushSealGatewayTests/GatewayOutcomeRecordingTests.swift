import Foundation
import PushSealCore
import PushSealGatewayModel
import PushSealGatewayStorage
import PushSealPrimitives
import PushSealTestSupport
import Testing

/// Every outcome recorded once on PostgreSQL, so that nothing is sent twice (issue 67, item 3):
/// every statement that takes delivery rows takes them so that no two wait on each other, or
/// PostgreSQL cancels one (`deadlock detected`), and a recording of outcomes that fails for a
/// transient reason is tried again, or its deliveries are sent again once their lease runs out.
/// `PUSHSEAL_STRESS_RUNS` repeats the drain (`make stress`); `make test` runs it once.
@Suite("pushseal-gateway records each outcome once on PostgreSQL", .serialized)
struct GatewayOutcomeRecordingTests {
    /// How many drains one test makes.
    static let runs = max(1, Int(ProcessInfo.processInfo.environment["PUSHSEAL_STRESS_RUNS"] ?? "") ?? 1)
    static let devices = 10
    static let pushes = 2_000

    @Test(
        "two instances of four workers, 5 s leases, APNs at 20 to 60 ms: 20,000 deliveries drain with no deadlock, none sent twice"
    )
    func twoInstances() throws {
        var figures: [String] = []
        for run in 1...Self.runs {
            let (seconds, deadlocks, repeats) = try drain()
            figures.append(
                "run \(run): \(String(format: "%.1f", seconds)) s, \(deadlocks) deadlocks, \(repeats) repeats")
            #expect(deadlocks == 0 && repeats == 0, "\(figures.last ?? "")")
        }
        print("drain stress: " + figures.joined(separator: "; "))
    }

    @Test("a recording that waits out lock_timeout is tried again while the lease is kept: the delivery goes out once")
    func transientFailureRetried() throws {
        let database = try GatewayBackend.postgres.newDatabase()
        let world = try GatewayProcessWorld(
            extra: #", "lease_seconds": 5"#, database: database, apnsDelayMilliseconds: 1_000)
        try world.start()
        #expect(try world.registerDevice() == 201)
        let store = PostgresGatewayStore(url: database, passwordFile: nil, connections: 2)
        #expect(try world.send("POST", "/v1/pushes", #"{"to":{"user":"u"},"payload":{"aps":{"alert":"hi"}}}"#) == 202)
        // Once a worker holds the delivery (APNs answers a second later), another transaction
        // holds its row for 3.5 s: the recording's first try waits out lock_timeout (2 s).
        let leased = eventually(10) {
            (try? store.read("SELECT 1 FROM deliveries WHERE lease_owner IS NOT NULL", []).isEmpty) == false
        }
        #expect(leased)
        try store.pool.transaction { connection in
            try connection.query("SELECT id FROM deliveries FOR UPDATE")
            Thread.sleep(forTimeInterval: 3.5)
        }
        #expect(eventually(10) { (try? store.statistics().deliveries[.sent]) == 1 })
        // Past the lease: a dropped recording would have sent it again by now.
        Thread.sleep(forTimeInterval: 6)
        #expect(world.apns.requests().count == 1, "sent once: \(world.apns.requests().count)")
        let events = world.logLines().compactMap { $0["event"]?.stringValue }
        #expect(events.contains("store-retry") && !events.contains("store-error"), "\(events)")
        #expect((try? store.statistics().deliveries) == [.sent: 1])
    }

    /// One drain of ``pushes`` pushes to ``devices`` devices, stored before either instance starts;
    /// its time, the deadlocks PostgreSQL counted in the database, and the deliveries APNs got
    /// more than once.
    private func drain() throws -> (seconds: Double, deadlocks: Int, repeats: Int) {
        let database = try GatewayBackend.postgres.newDatabase()
        let world = try GatewayProcessWorld(
            extra: #", "workers": 4, "lease_seconds": 5"#, database: database, instances: 2, apnsDelayMilliseconds: 20,
            apnsJitterMilliseconds: 40)
        let store = PostgresGatewayStore(url: database, passwordFile: nil, connections: 2)
        try store.migrate()
        let devices = try (1...Self.devices).map { index in
            let device = Device(
                app: .default, id: "phone-\(index)", user: "u",
                channel: .apns(
                    token: GatewayWorld.deviceToken("00aa", index), topic: "com.example.shop",
                    environment: .production, publicKeyJWK: world.deviceKey),
                registeredAt: 1, unregisteredAt: nil)
            _ = try store.putDevice(device)
            return device
        }
        // An envelope's first byte and enough of one for the mock; `n` names the delivery.
        let envelope = Base64URL.encode([1] + [UInt8](repeating: 7, count: 40))
        let now = Int64(Date().timeIntervalSince1970 * 1_000)
        for push in 0..<Self.pushes {
            let deliveries = devices.enumerated().map { index, device in
                NewDelivery(
                    device: device, headers: [("apns-topic", "com.example.shop"), ("apns-push-type", "alert")],
                    body: Array(#"{"enc":"\#(envelope)","n":"\#(push)-\#(index)"}"#.utf8), expiration: nil)
            }
            _ = try store.acceptPush(
                id: "push-\(push)", in: .default, idempotencyKey: nil, requestHash: [], at: now, deliveries: deliveries)
        }
        let began = ContinuousClock.now
        for instance in 0..<2 { try world.start(instance: instance) }
        let drained = (0..<1_800).contains { _ in
            Thread.sleep(forTimeInterval: 0.1)
            return (try? store.statistics().deliveries[.queued] ?? 0) == 0
        }
        let elapsed = (ContinuousClock.now - began).components
        let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        #expect(drained, "the outbox drains: \((try? store.statistics().deliveries) ?? [:])")
        // The instances' sessions report their statistics as they end.
        for instance in 0..<2 { world.kill(SIGTERM, instance: instance) }
        Thread.sleep(forTimeInterval: 1)
        let deadlocks = Int(
            try store.read("SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()", []).first?
                .first?.integer ?? -1)
        let logged = (0..<2).flatMap { world.logLines(instance: $0) }.filter {
            $0["event"] == .string("store-error")
        }
        #expect(logged.isEmpty, "no store error: \(logged.prefix(3))")
        var received: [String: Int] = [:]
        for request in world.apns.requests() where request["status"] as? Int == 200 {
            guard let body = request["body"] as? String,
                let marker = try JSONParser.parse(Array(body.utf8)).objectValue?["n"]?.stringValue
            else { continue }
            received[marker, default: 0] += 1
        }
        #expect(received.count == Self.pushes * Self.devices, "every delivery reached APNs: \(received.count)")
        return (seconds, deadlocks, received.values.reduce(0) { $0 + $1 - 1 })
    }
}
