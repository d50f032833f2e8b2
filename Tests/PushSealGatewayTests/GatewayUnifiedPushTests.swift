import Foundation
import PushSealCore
import PushSealGatewayModel
import PushSealTestSupport
import Testing

@testable import PushSealGateway

/// An Android app on UnifiedPush (docs/android.md) registers the endpoint and keys its connector
/// gave it, as a browser registers its subscription. With the embedded FCM distributor, the
/// endpoint is FCM's Web Push one, `https://fcm.googleapis.com/fcm/send/<registration token>`:
/// here the same path and token form on the mock push service, which checks what FCM checks
/// (VAPID, `aes128gcm`, a TTL, 4,096 bytes) and opens the message with the keys the connector
/// holds, as the connector does on the phone.
@Suite("UnifiedPush through an FCM-shaped endpoint", .serialized)
struct GatewayUnifiedPushTests {
    /// An FCM registration token's form: an instance id, a colon, and the token proper.
    static let registrationToken = "dQw4w9WgXcQ:APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx-hFjX1zPq8pTw0yZ3k"

    @Test("the gateway posts to /fcm/send/<token> with VAPID, and what arrives opens with the connector's keys")
    func fcmShapedEndpoint() throws {
        let world = try GatewayWorld(webPush: true)
        let endpoint = "\(world.pushServices[0].url)/fcm/send/\(Self.registrationToken)"
        let connector = try world.receivers[0].subscription(endpoint: endpoint)
        let registered = try world.registerSubscription("android-1", user: "u1", connector)
        #expect(registered.status == 201, "\(registered.json.map { JSONWriter.string(.object($0)) } ?? "")")
        let accepted = try world.request(
            "POST", "/v1/pushes",
            json:
                #"{"to":{"user":"u1"},"payload":{"aps":{"alert":{"title":"Table 12","body":"Ready"},"sound":"default"},"table":12},"options":{"priority":10,"collapse_id":"table-12"}}"#,
            token: world.adminToken)
        #expect(accepted.status == 202 && accepted.json?["deliveries"] == .number(JSONNumber(1)))
        let id = try #require(accepted.json?["id"]?.stringValue)
        let states = try GatewayWebPushTests.states(world, push: id)
        #expect(states["android-1"]?.status == .sent, "\(states)")

        let request = try #require(world.pushServices[0].requests().first)
        #expect(request["path"] as? String == "/fcm/send/\(Self.registrationToken)", "the token, colon and all")
        #expect(request["status"] as? Int == 201)
        let vapid = try #require(request["vapid"] as? [String: Any], "FCM refuses a Web Push request without VAPID")
        #expect(vapid["sub"] as? String == "mailto:ops@example.com")
        #expect(vapid["aud"] as? String == world.pushServices[0].url, "aud is the push service's origin")
        #expect(request["urgency"] as? String == "high" && request["topic"] as? String == "table-12")
        let content = try GatewayWebPushTests.content(request)
        let notification = try #require(content["notification"]?.objectValue, "the connector gets the declarative JSON")
        #expect(notification["title"] == .string("Table 12") && notification["body"] == .string("Ready"))
        #expect(notification["data"]?.objectValue?["table"] == .number(JSONNumber(12)))

        // Without priority 10 there is no Urgency, which FCM takes as normal priority (android.md).
        let plain = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":{"aps":{"alert":"Later"}}}"#,
            token: world.adminToken)
        let plainID = try #require(plain.json?["id"]?.stringValue)
        #expect(try GatewayWebPushTests.states(world, push: plainID)["android-1"]?.status == .sent)
        let second = try #require(world.pushServices[0].requests().dropFirst().first)
        #expect(
            second["status"] as? Int == 201 && second["urgency"] as? String == nil && second["topic"] as? String == nil,
            "\(second)")
    }
}
