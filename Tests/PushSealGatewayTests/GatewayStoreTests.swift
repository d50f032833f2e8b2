import Dispatch
import PushSealTestSupport
import Synchronization
import Testing

@testable import PushSealGateway

/// The stores' outbox rules, without HTTP, on SQLite and on PostgreSQL.
@Suite("pushseal-gateway store")
struct GatewayStoreTests {
    static func device(_ id: String, registeredAt: Int64) -> Device {
        Device(
            id: id, user: "u", token: String(repeating: "ab", count: 32), topic: "com.example.shop",
            environment: .production, publicKeyJWK: "{}", registeredAt: registeredAt, unregisteredAt: nil)
    }

    /// A new, migrated store of `backend` in `directory`.
    static func store(_ backend: GatewayBackend, in directory: TemporaryDirectory) throws -> any GatewayStore {
        let store = try backend.store(try backend.newDatabase(), in: directory)
        try store.migrate()
        return store
    }

    @Test(
        "a delivery still queued for a token another push found gone is claimed as gone, and only then",
        arguments: GatewayBackend.allCases)
    func goneTokens(_ backend: GatewayBackend) throws {
        let directory = TemporaryDirectory()
        let store = try Self.store(backend, in: directory)
        let device = Self.device("d", registeredAt: 100)
        _ = try store.putDevice(device)
        let delivery = NewDelivery(device: device, headers: [("apns-topic", device.topic)], body: [1], expiration: nil)
        #expect(try store.acceptPush(id: "p1", idempotencyKey: nil, at: 200, deliveries: [delivery]) == nil)
        #expect(try store.acceptPush(id: "p2", idempotencyKey: nil, at: 200, deliveries: [delivery]) == nil)
        let first = try store.claimDeliveries(limit: 1, at: 300, leaseMilliseconds: 1_000, owner: "w")
        #expect(first.count == 1 && first[0].tokenIsGone == false)
        try store.finish(first[0], .unregistered(reason: "Unregistered", timestamp: 250), attempts: 1, at: 300)
        let second = try store.claimDeliveries(limit: 1, at: 300, leaseMilliseconds: 1_000, owner: "w")
        #expect(second.count == 1 && second[0].tokenIsGone, "the device was marked: the second is not sent")

        _ = try store.putDevice(Self.device("d", registeredAt: 400))
        #expect(try store.acceptPush(id: "p3", idempotencyKey: nil, at: 500, deliveries: [delivery]) == nil)
        let third = try store.claimDeliveries(limit: 5, at: 600, leaseMilliseconds: 1_000, owner: "w")
        #expect(third.allSatisfy { !$0.tokenIsGone }, "registering again clears the mark")
    }

    @Test(
        "a claim is exclusive and a lease that ran out is claimed again; an idempotency key stores one push",
        arguments: GatewayBackend.allCases)
    func claims(_ backend: GatewayBackend) throws {
        let directory = TemporaryDirectory()
        let store = try Self.store(backend, in: directory)
        let device = Self.device("d", registeredAt: 100)
        #expect(try store.putDevice(device), "new")
        #expect(try store.putDevice(device) == false, "updated")
        let delivery = NewDelivery(
            device: device, headers: [("apns-topic", device.topic)], body: [0, 1, 0xFF], expiration: nil)
        #expect(try store.acceptPush(id: "p1", idempotencyKey: "k", at: 200, deliveries: [delivery, delivery]) == nil)
        #expect(try store.acceptPush(id: "p2", idempotencyKey: "k", at: 201, deliveries: [delivery]) == "p1")
        #expect(try store.push(id: "p2") == nil)

        let first = try store.claimDeliveries(limit: 1, at: 300, leaseMilliseconds: 1_000, owner: "a")
        let second = try store.claimDeliveries(limit: 5, at: 300, leaseMilliseconds: 1_000, owner: "b")
        #expect(first.count == 1 && second.count == 1 && first[0].id != second[0].id)
        #expect(first[0].body == [0, 1, 0xFF] && first[0].headers.map(\.value) == [device.topic])
        #expect(try store.claimDeliveries(limit: 5, at: 1_299, leaseMilliseconds: 1_000, owner: "c").isEmpty)
        try store.renewLeases(owner: "a", until: 5_000)
        let reclaimed = try store.claimDeliveries(limit: 5, at: 1_300, leaseMilliseconds: 1_000, owner: "c")
        #expect(reclaimed.map(\.id) == [second[0].id], "b's lease ran out; a renewed its own")
        try store.finish(first[0], .sent(apnsID: "A"), attempts: 1, at: 1_400)
        try store.finish(reclaimed[0], .retry(at: 9_000, reason: "TooManyRequests"), attempts: 2, at: 1_400)
        let states = try #require(try store.push(id: "p1")).deliveries
        #expect(states.map(\.status) == [.sent, .queued] && states.map(\.attempts) == [1, 2])
        #expect(try store.claimDeliveries(limit: 5, at: 8_999, leaseMilliseconds: 1_000, owner: "c").isEmpty)
        #expect(try store.claimDeliveries(limit: 5, at: 9_000, leaseMilliseconds: 1_000, owner: "c").count == 1)
        #expect(try store.statistics().deliveries == [.sent: 1, .queued: 1])
    }

    @Test("a push accepted by one PostgreSQL instance wakes another's listener; a repeated idempotency key does not")
    func notifications() throws {
        let database = try GatewayBackend.postgres.newDatabase()
        let accepting = PostgresGatewayStore(url: database, passwordFile: nil, connections: 2)
        let listening = PostgresGatewayStore(url: database, passwordFile: nil, connections: 2)
        try accepting.migrate()
        let wakes = DispatchSemaphore(value: 0)
        let listener = OutboxListener(pool: listening.pool) { wakes.signal() }
        defer { listener.stop() }
        // The listener's LISTEN is in place once a NOTIFY sent now reaches it.
        let ready = ContinuousClock.now.advanced(by: .seconds(10))
        repeat {
            try accepting.pool.withConnection { try $0.execute("NOTIFY \(PostgresGatewayStore.channel)") }
        } while wakes.wait(timeout: .now() + 0.2) == .timedOut && ContinuousClock.now < ready
        while wakes.wait(timeout: .now() + 0.3) == .success {}

        #expect(wakes.wait(timeout: .now() + 0.5) == .timedOut, "nothing wakes an idle listener")
        let device = Self.device("d", registeredAt: 100)
        _ = try accepting.putDevice(device)
        let delivery = NewDelivery(device: device, headers: [("apns-topic", device.topic)], body: [1], expiration: nil)
        #expect(try accepting.acceptPush(id: "p1", idempotencyKey: "k", at: 200, deliveries: [delivery]) == nil)
        #expect(wakes.wait(timeout: .now() + 5) == .success, "the accept woke the other instance")
        #expect(try accepting.acceptPush(id: "p2", idempotencyKey: "k", at: 300, deliveries: [delivery]) == "p1")
        #expect(wakes.wait(timeout: .now() + 1) == .timedOut, "a repeat stores nothing and wakes no one")
    }

    @Test("instances that start together migrate one PostgreSQL database once, under the advisory lock")
    func concurrentMigrations() throws {
        let database = try GatewayBackend.postgres.newDatabase()
        let stores = (0..<4).map { _ in PostgresGatewayStore(url: database, passwordFile: nil, connections: 2) }
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: stores.count) { index in
            do {
                try stores[index].migrate()
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let versions = try stores[0].pool.withConnection { try $0.query("SELECT version FROM pushseal_schema") }
        #expect(versions.map { $0[0].integer } == [Int64(PostgresGatewayStore.migrations.count)], "applied once")
    }
}
