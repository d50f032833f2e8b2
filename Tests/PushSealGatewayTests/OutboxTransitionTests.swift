import PushSealCore
import PushSealGatewayModel
import Testing

/// The outbox's rules as values: what each outcome does to its delivery, with no database.
@Suite("pushseal-gateway outbox transitions")
struct OutboxTransitionTests {
    static let delivery = OutboxDelivery(
        id: 7, app: .default, pushID: "p1", deviceID: "phone", kind: .apns, address: "ab01", environment: .production,
        headers: [],
        body: [1, 2], expiration: nil, attempts: 2, acceptedAt: 5_000, addressIsGone: false)

    static func transition(_ outcome: DeliveryOutcome) -> OutboxTransition {
        OutboxTransition(EndedAttempt(delivery: delivery, outcome: outcome, attempts: 3, time: 9_000))
    }

    @Test("sent, failed and expired end the delivery with their reason; a retry keeps it queued, due when it says")
    func changes() {
        let sent = Self.transition(.sent(apnsID: "A-1"))
        #expect(sent.change == .end(.sent, reason: nil, apnsID: "A-1"))
        #expect(sent.deliveryID == 7 && sent.attempts == 3 && sent.time == 9_000 && sent.goneAddress == nil)
        #expect(sent.endEvent == .deliverySent)

        let failed = Self.transition(.failed(reason: .apns("PayloadTooLarge")))
        #expect(failed.change == .end(.failed, reason: .apns("PayloadTooLarge"), apnsID: nil))
        #expect(failed.endEvent == .deliveryFailed && failed.goneAddress == nil)

        #expect(Self.transition(.expired).change == .end(.expired, reason: .gateway(.expired), apnsID: nil))
        #expect(Self.transition(.expired).endEvent == .deliveryExpired)

        let retry = Self.transition(.retry(at: 40_000, reason: .transport(.timeout, detail: "no answer")))
        #expect(retry.change == .retry(at: 40_000, reason: .transport(.timeout, detail: "no answer")))
        #expect(retry.endEvent == nil && retry.goneAddress == nil)
    }

    @Test("an address found gone marks its device only up to APNs' timestamp, else up to the push's acceptance")
    func goneAddress() {
        let stamped = Self.transition(.unregistered(reason: .apns("Unregistered"), timestamp: 8_000))
        #expect(stamped.change == .end(.unregistered, reason: .apns("Unregistered"), apnsID: nil))
        #expect(
            stamped.goneAddress
                == OutboxTransition.GoneAddress(
                    app: .default, deviceID: "phone", address: "ab01", registeredBy: 8_000,
                    reason: .apns("Unregistered")))
        #expect(stamped.endEvent == .deliveryUnregistered)
        let unstamped = Self.transition(.unregistered(reason: .pushService(status: 410, words: nil), timestamp: nil))
        #expect(unstamped.goneAddress?.registeredBy == 5_000, "no timestamp: the acceptance")
    }

    @Test("a send is the row's update alone only while no endpoint of its app wants delivery.sent")
    func plainSend() throws {
        let other = try #require(AppID("other"))
        let none = WebhookRouting([])
        let failures = WebhookRouting([.init(app: .default, endpoint: "ops", events: [.deliveryFailed])])
        let sends = WebhookRouting([.init(app: .default, endpoint: "crm", events: [.deliverySent])])
        let othersSends = WebhookRouting([.init(app: other, endpoint: "crm", events: [.deliverySent])])
        let sent = Self.transition(.sent(apnsID: nil))
        #expect(sent.isPlainSend(routing: none, in: .default) && sent.isPlainSend(routing: failures, in: .default))
        #expect(!sent.isPlainSend(routing: sends, in: .default))
        #expect(sent.isPlainSend(routing: othersSends, in: .default), "another app's endpoint hears nothing of it")
        #expect(!sent.isPlainSend(routing: othersSends, in: other))
        #expect(!Self.transition(.failed(reason: .apns("BadTopic"))).isPlainSend(routing: none, in: .default))
        #expect(!Self.transition(.retry(at: 1, reason: .gateway(.notSent))).isPlainSend(routing: none, in: .default))
    }
}
