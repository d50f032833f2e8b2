import PushSealTestSupport
import Testing

@testable import PushSealGateway

/// The SQLite store's outbox rules, without HTTP.
@Suite("pushseal-gateway store")
struct GatewayStoreTests {
    static func device(_ id: String, registeredAt: Int64) -> Device {
        Device(
            id: id, user: "u", token: String(repeating: "ab", count: 32), topic: "com.example.shop",
            environment: .production, publicKeyJWK: "{}", registeredAt: registeredAt, unregisteredAt: nil)
    }

    @Test("a delivery still queued for a token another push found gone is claimed as gone, and only then")
    func goneTokens() throws {
        let directory = TemporaryDirectory()
        let store = try SQLiteGatewayStore(path: directory.file("gateway.db"))
        try store.migrate()
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
}
