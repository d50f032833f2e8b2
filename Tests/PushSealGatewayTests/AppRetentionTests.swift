import PushSealGatewayModel
import PushSealGatewayStorage
import PushSealTestSupport
import Testing

@testable import PushSealGateway

/// Retention is each app's (gateway-v1.md, "Retention"): a served app's ended records go after its
/// own `retention_hours`, and an app no instance serves any more keeps its rows for the retention
/// it was last served with, then loses them, its queued deliveries too.
@Suite("pushseal-gateway retention per app")
struct AppRetentionTests {
    static let hour: Int64 = 3_600_000

    /// Stores, in `app`, a push `p-APP` accepted at 1,000 with two deliveries: one sent at 10,000,
    /// one left queued (due since 1,000).
    static func pushWithOneSent(in app: AppID, _ store: any GatewayStore) throws {
        let devices = try ["a", "b"].map { id in
            let device = Device(
                app: app, id: id, user: "u",
                channel: .apns(
                    token: String(repeating: id == "a" ? "aa" : "bb", count: 32), topic: GatewayStoreTests.topic,
                    environment: .production, publicKeyJWK: "{}"),
                registeredAt: 100, unregisteredAt: nil)
            _ = try store.putDevice(device)
            return device
        }
        _ = try store.acceptPush(
            id: "p-\(app)", in: app, idempotencyKey: "k", requestHash: [], at: 1_000,
            deliveries: devices.map { NewDelivery(device: $0, headers: [], body: [1], expiration: nil) })
        let claimed = try store.claimDeliveries(
            .apns, from: [app], limit: 1, at: 2_000, leaseMilliseconds: 1_000, owner: "w")
        try store.finish(try #require(claimed.first), .sent(apnsID: nil), attempts: 1, at: 10_000, routing: .none)
    }

    /// The statuses of the deliveries of `app`'s push, nil once the push is gone.
    static func statuses(in app: AppID, _ store: any GatewayStore) throws -> [DeliveryStatus]? {
        try store.push(id: "p-\(app)", in: app)?.deliveries.map(\.status).sorted { $0.rawValue < $1.rawValue }
    }

    @Test(
        "each served app's ended records go after its own retention; an app served by none keeps its rows for its last retention, then loses them, queued ones too",
        arguments: GatewayBackend.allCases)
    func retentionPerApp(_ backend: GatewayBackend) throws {
        let directory = TemporaryDirectory()
        let store = try GatewayStoreTests.store(backend, in: directory)
        let (news, gone, elsewhere) = (
            try #require(AppID("news")), try #require(AppID("gone")), try #require(AppID("elsewhere"))
        )
        for app in [AppID.default, news, gone, elsewhere] { try Self.pushWithOneSent(in: app, store) }
        // `gone` was last served at 20,000 with 2 hours; `elsewhere` is served by another instance
        // now, with 2 hours too.
        let sweepAt = 10_000 + 3 * Self.hour
        try store.heartbeat(
            InstanceRecord(id: "old", version: "1", startedAt: 0, heartbeatAt: 20_000),
            serving: [AppRecord(id: gone, retentionHours: 2, servedAt: 20_000)], forgetBefore: 0)
        try store.heartbeat(
            InstanceRecord(id: "other", version: "1", startedAt: 0, heartbeatAt: sweepAt),
            serving: [AppRecord(id: elsewhere, retentionHours: 2, servedAt: sweepAt)], forgetBefore: 0)
        #expect(try store.listedApps().map(\.id) == [elsewhere, gone], "by name")
        let upkeep = Housekeeping(
            store: store,
            serving: [
                Housekeeping.ServedApp(id: .default, retentionHours: 1, webPush: false),
                Housekeeping.ServedApp(id: news, retentionHours: 48, webPush: true),
            ], retentionHours: 72, metrics: Metrics(), log: EventLog(enabled: false))

        // An hour and a half after the sends: only default's retention (1 h) has passed.
        let early = upkeep.sweep(now: 10_000 + 3 * Self.hour / 2)
        #expect(early == RetentionSweep(deliveries: 1), "\(early)")
        #expect(try Self.statuses(in: .default, store) == [.queued], "its ended delivery went, the queued one stays")
        for app in [news, gone, elsewhere] { #expect(try Self.statuses(in: app, store) == [.queued, .sent], "\(app)") }

        // Three hours after: gone's and elsewhere's 2 hours have passed too. No instance served
        // gone since, so its queued delivery goes, and its push with it; elsewhere's stays.
        let later = upkeep.sweep(now: sweepAt)
        #expect(
            later == RetentionSweep(deliveries: 2, abandonedDeliveries: 1, pushes: 1), "\(later)")
        #expect(try Self.statuses(in: gone, store) == nil)
        #expect(
            try store.earlierPush(idempotencyKey: "k", in: gone, requestHash: []) == nil, "the key went with it")
        #expect(try Self.statuses(in: elsewhere, store) == [.queued])
        #expect(try Self.statuses(in: news, store) == [.queued, .sent], "news keeps 48 hours")
        #expect(try Self.statuses(in: .default, store) == [.queued])
        #expect(try store.device(id: "a", in: gone) != nil, "devices are not history: they stay")
    }

    @Test(
        "a served app's Web Push deliveries wait while an instance with webpush for it served it within its retention, then go",
        arguments: GatewayBackend.allCases)
    func webPushWithoutWebpush(_ backend: GatewayBackend) throws {
        let directory = TemporaryDirectory()
        let store = try GatewayStoreTests.store(backend, in: directory)
        let subscription = Device(
            app: .default, id: "laptop", user: "u",
            channel: .webPush(endpoint: "https://push.example.net/s/1", p256dh: "k", auth: "a"), registeredAt: 100,
            unregisteredAt: nil)
        _ = try store.putDevice(subscription)
        _ = try store.acceptPush(
            id: "p-web", in: .default, idempotencyKey: nil, requestHash: [], at: 1_000,
            deliveries: [NewDelivery(device: subscription, headers: [], body: [1], expiration: nil)])
        // Another instance, with webpush for the app, served it two hours in; this one has none,
        // and its heartbeat leaves that time as it was.
        try store.heartbeat(
            InstanceRecord(id: "with-webpush", version: "1", startedAt: 0, heartbeatAt: 2 * Self.hour),
            serving: [
                AppRecord(id: .default, retentionHours: 1, servedAt: 2 * Self.hour, webPushServedAt: 2 * Self.hour)
            ],
            forgetBefore: 0)
        try store.heartbeat(
            InstanceRecord(id: "without", version: "1", startedAt: 0, heartbeatAt: 2 * Self.hour + 1),
            serving: [AppRecord(id: .default, retentionHours: 1, servedAt: 2 * Self.hour + 1)], forgetBefore: 0)
        #expect(try store.listedApps().first?.webPushServedAt == 2 * Self.hour)
        let upkeep = Housekeeping(
            store: store, serving: [Housekeeping.ServedApp(id: .default, retentionHours: 1, webPush: false)],
            retentionHours: 72, metrics: Metrics(), log: EventLog(enabled: false))
        #expect(upkeep.sweep(now: 5 * Self.hour / 2) == RetentionSweep(), "served with webpush within the hour")
        #expect(try store.push(id: "p-web", in: .default)?.deliveries.first?.status == .queued)
        #expect(upkeep.sweep(now: 7 * Self.hour / 2) == RetentionSweep(abandonedDeliveries: 1, pushes: 1))
        #expect(try store.push(id: "p-web", in: .default) == nil)
    }
}
