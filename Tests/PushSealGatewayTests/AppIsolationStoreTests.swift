import PushSealGatewayModel
import PushSealGatewayStorage
import PushSealTestSupport
import Testing

/// Devices belong to their app in storage: the same id and user in two apps are two devices, and
/// nothing done in one app reads or changes the other's.
@Suite("pushseal-gateway apps in storage")
struct AppIsolationStoreTests {
    static func device(_ app: AppID, token: String) -> Device {
        Device(
            app: app, id: "d", user: "u",
            channel: .apns(token: token, topic: GatewayStoreTests.topic, environment: .production, publicKeyJWK: "{}"),
            registeredAt: 100, unregisteredAt: nil)
    }

    @Test(
        "two apps' webhook endpoints of one name: each hears of its own app's events, and fails and is enabled alone",
        arguments: GatewayBackend.allCases)
    func webhooks(_ backend: GatewayBackend) throws {
        let directory = TemporaryDirectory()
        let store = try GatewayStoreTests.store(backend, in: directory)
        let (shop, news) = (try #require(AppID("shop")), try #require(AppID("news")))
        let routing = WebhookRouting(
            [shop, news].map { .init(app: $0, endpoint: "hooks", events: [.deliveryUnregistered]) })
        for app in [shop, news] {
            _ = try store.putDevice(Self.device(app, token: String(repeating: "cc", count: 32)))
        }
        // Deleting shop's device ends its queued delivery: an event for shop's endpoint alone.
        let shopDevice = try #require(try store.device(id: "d", in: shop))
        _ = try store.acceptPush(
            id: "p", in: shop, idempotencyKey: nil, requestHash: [], at: 200,
            deliveries: [NewDelivery(device: shopDevice, headers: [], body: [1], expiration: nil)])
        #expect(try store.deleteDevice(id: "d", in: shop, at: 300, routing: routing))
        func claim(_ app: AppID) throws -> WebhookClaim {
            try store.claimWebhookEvents(
                endpoint: "hooks", in: app, limit: 10, at: 400, expireBefore: 0, leaseMilliseconds: 1_000, owner: "w")
        }
        #expect(try claim(news).events.isEmpty, "news's endpoint of the same name heard nothing")
        let shopEvents = try claim(shop).events
        #expect(shopEvents.count == 1 && shopEvents[0].body.contains(#""push":"p""#), "\(shopEvents)")
        #expect(shopEvents[0].body.contains(#""data":{"app":"shop","#), "the event names its app")
        // Shop's endpoint fails past its window and is disabled; news's is not, and is not enabled by shop's name.
        let state = try store.recordWebhookAttempt(
            .failed(reason: "HTTP 500", retryAfterSeconds: nil), endpoint: "hooks", in: shop,
            sent: shopEvents.map(\.rowID), unsent: [], at: 500, disableBefore: 501)
        #expect(state.newlyDisabled)
        #expect(try claim(shop).disabled && !claim(news).disabled)
        #expect(try !store.enableWebhookEndpoint("hooks", in: news), "news's was never disabled")
        #expect(try store.enableWebhookEndpoint("hooks", in: shop))
    }

    @Test("an app's name is 1 to 32 of a–z 0–9 -, not starting with -")
    func names() {
        for name in ["default", "shop", "a", "shop-eu-2", String(repeating: "x", count: 32), "0app"] {
            #expect(AppID(name)?.name == name, "\(name)")
        }
        for name in ["", "-shop", "Shop", "shop_eu", "shop eu", "shöp", String(repeating: "x", count: 33), "a/b"] {
            #expect(AppID(name) == nil, "\(name)")
        }
        #expect(AppID.default.name == "default")
    }

    @Test(
        "two apps' devices of one id and user, and their pushes: read, listed, pushed to, found gone and deleted each in its own app",
        arguments: GatewayBackend.allCases)
    func devices(_ backend: GatewayBackend) throws {
        let directory = TemporaryDirectory()
        let store = try GatewayStoreTests.store(backend, in: directory)
        let (shop, news) = (try #require(AppID("shop")), try #require(AppID("news")))
        let (tokenShop, tokenNews) = (String(repeating: "aa", count: 32), String(repeating: "bb", count: 32))
        #expect(try store.putDevice(Self.device(shop, token: tokenShop)), "new in shop")
        #expect(try store.putDevice(Self.device(news, token: tokenNews)), "new in news, though shop has a d")
        #expect(try store.device(id: "d", in: shop)?.channel.address == tokenShop)
        #expect(try store.device(id: "d", in: news)?.channel.address == tokenNews)
        #expect(try store.device(id: "d", in: .default) == nil)
        #expect(try store.devices(user: "u", in: shop).map(\.channel.address) == [tokenShop])
        let everyone = DeviceQuery(state: nil, since: nil, afterID: nil, afterUnregisteredAt: nil, user: nil)
        #expect(try store.devices(everyone, in: news, limit: 10).map(\.channel.address) == [tokenNews])
        #expect(try store.devices(everyone, in: .default, limit: 10).isEmpty)

        // A relay endpoint of shop's device leads to shop's device, and only shop removes it.
        let shopDevice = try #require(try store.device(id: "d", in: shop))
        let (inbox, _) = WebPushInbox.make(
            secret: Array(repeating: 7, count: 32), for: shopDevice, vapidKey: nil, at: 150)
        try store.addInbox(inbox)
        let found = try #require(try store.inbox(idHash: inbox.idHash))
        #expect(found.0.app == shop && found.1?.channel.address == tokenShop, "shop's device, not news's d")
        #expect(try !store.removeInbox(idHash: inbox.idHash, in: news, at: 160))
        #expect(try store.inbox(idHash: inbox.idHash)?.0.removedAt == nil)

        // A push to shop's device, whose answer finds its token gone, marks shop's device only.
        let delivery = NewDelivery(device: shopDevice, headers: [], body: [1], expiration: nil)
        #expect(
            try store.acceptPush(
                id: "p", in: shop, idempotencyKey: "k", requestHash: [1], at: 200, deliveries: [delivery]) == .accepted)
        // The push is shop's: news neither reads it nor shares its idempotency key.
        #expect(try store.push(id: "p", in: shop)?.deliveries.count == 1)
        #expect(try store.push(id: "p", in: news) == nil)
        #expect(try store.earlierPush(idempotencyKey: "k", in: shop, requestHash: [1]) == .repeated("p"))
        #expect(try store.earlierPush(idempotencyKey: "k", in: news, requestHash: [1]) == nil)
        #expect(
            try store.acceptPush(id: "q", in: news, idempotencyKey: "k", requestHash: [2], at: 200, deliveries: [])
                == .accepted, "the same key in another app is another push")
        #expect(
            try store.acceptPush(id: "r", in: shop, idempotencyKey: "k", requestHash: [2], at: 200, deliveries: [])
                == .conflict("p"))
        let claimed = try store.claimDeliveries(
            .apns, from: [news, shop], limit: 5, at: 300, leaseMilliseconds: 1_000, owner: "w")
        #expect(claimed.map(\.app) == [shop] && claimed.first?.address == tokenShop)
        try store.finish(
            try #require(claimed.first), .unregistered(reason: .apns("Unregistered"), timestamp: nil), attempts: 1,
            at: 400, routing: .none)
        #expect(try store.device(id: "d", in: shop)?.unregisteredAt == 400)
        #expect(try store.device(id: "d", in: news)?.unregisteredAt == nil)
        #expect(try store.inbox(idHash: inbox.idHash)?.0.removedAt == 400, "its relay endpoint ended with it")

        #expect(try !store.deleteDevice(id: "d", in: .default, at: 500, routing: .none))
        #expect(try store.deleteDevice(id: "d", in: news, at: 500, routing: .none))
        #expect(try store.device(id: "d", in: news) == nil)
        #expect(try store.device(id: "d", in: shop) != nil, "shop's device outlived news's")
    }

    @Test(
        "a claim serves the apps in the order given: the first app's due deliveries, then the next's; an app not named is not claimed",
        arguments: GatewayBackend.allCases)
    func claimsByApp(_ backend: GatewayBackend) throws {
        let directory = TemporaryDirectory()
        let store = try GatewayStoreTests.store(backend, in: directory)
        let (busy, quiet, removed) = (
            try #require(AppID("busy")), try #require(AppID("quiet")), try #require(AppID("gone"))
        )
        // busy has a backlog of 40, all due before quiet's one push; gone has one of its own.
        for (app, count, time) in [(busy, 40, Int64(100)), (quiet, 1, 200), (removed, 1, 50)] {
            let device = Self.device(app, token: String(repeating: "ab", count: 32))
            _ = try store.putDevice(device)
            _ = try store.acceptPush(
                id: "p-\(app)", in: app, idempotencyKey: nil, requestHash: [], at: time,
                deliveries: Array(
                    repeating: NewDelivery(device: device, headers: [], body: [1], expiration: nil), count: count))
        }
        func claim(_ apps: [AppID], limit: Int, owner: String) throws -> [OutboxDelivery] {
            try store.claimDeliveries(.apns, from: apps, limit: limit, at: 300, leaseMilliseconds: 60_000, owner: owner)
        }
        let busyFirst = try claim([busy, quiet], limit: 25, owner: "w1")
        #expect(busyFirst.count == 25 && busyFirst.allSatisfy { $0.app == busy }, "busy's backlog fills the claim")
        let quietFirst = try claim([quiet, busy], limit: 10, owner: "w2")
        #expect(quietFirst.map(\.app) == [quiet] + Array(repeating: busy, count: 9), "\(quietFirst.map(\.app))")
        let rest = try claim([busy, quiet], limit: 25, owner: "w3")
        #expect(rest.count == 6 && rest.allSatisfy { $0.app == busy }, "the last of busy's; quiet's was claimed")
        #expect(try claim([busy, quiet], limit: 25, owner: "w4").isEmpty, "nothing of gone's, though it is due")
        #expect(try claim([removed], limit: 25, owner: "w5").count == 1, "named, it is claimed")
    }
}
