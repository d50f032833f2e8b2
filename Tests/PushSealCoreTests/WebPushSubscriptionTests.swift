import Foundation
import PushSealPrimitives
import Testing

@testable import PushSealCore

/// Subscriptions as browsers give them, and everything about them that is refused.
@Suite("Web Push subscriptions")
struct WebPushSubscriptionTests {
    static let p256dh = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let auth = "BTBZMqHH6r4Tts7J_aSIgg"

    static func parse(_ text: String) throws -> WebPushSubscription {
        let object = try #require(try JSONParser.parse(Array(text.utf8)).objectValue)
        return try WebPushSubscription(json: object)
    }

    @Test("PushSubscription.toJSON()'s object is read, expirationTime and unknown members ignored")
    func browserJSON() throws {
        let subscription = try Self.parse(
            """
            {"endpoint":"https://fcm.googleapis.com/fcm/send/abc:def","expirationTime":null,
             "keys":{"p256dh":"\(Self.p256dh)","auth":"\(Self.auth)","extra":1}}
            """)
        #expect(subscription.endpoint == "https://fcm.googleapis.com/fcm/send/abc:def")
        #expect(subscription.p256dh == Self.p256dh)
        let again = try WebPushSubscription(json: subscription.json)
        #expect(again.p256dh == Self.p256dh)
        #expect(again.authSecret == subscription.authSecret)
    }

    @Test("base64url padded with = is read as unpadded")
    func paddedBase64() throws {
        let subscription = try WebPushSubscription(
            endpoint: "https://push.example.net/x", p256dh: Self.p256dh + "=", auth: Self.auth + "==")
        #expect(subscription.p256dh == Self.p256dh)
    }

    @Test(
        "every malformed member is invalid-subscription, naming the member",
        arguments: [
            (#"{"keys":{"p256dh":"P","auth":"A"}}"#, "\"endpoint\" is missing"),
            (#"{"endpoint":7,"keys":{"p256dh":"P","auth":"A"}}"#, "\"endpoint\" must be a string"),
            (#"{"endpoint":"http://push.example.net/x","keys":{"p256dh":"P","auth":"A"}}"#, "\"endpoint\""),
            (#"{"endpoint":"https://push.example.net/x"}"#, "\"keys\" is missing"),
            (#"{"endpoint":"https://push.example.net/x","keys":[]}"#, "\"keys\" must be an object"),
            (#"{"endpoint":"https://push.example.net/x","keys":{"auth":"A"}}"#, "\"keys.p256dh\" is missing"),
            (
                #"{"endpoint":"https://push.example.net/x","keys":{"p256dh":"AAAA","auth":"A"}}"#,
                "\"keys.p256dh\" is not an uncompressed"
            ),
            (#"{"endpoint":"https://push.example.net/x","keys":{"p256dh":"P"}}"#, "\"keys.auth\" is missing"),
            (
                #"{"endpoint":"https://push.example.net/x","keys":{"p256dh":"P","auth":"A*"}}"#,
                "\"keys.auth\" is not base64url"
            ),
            (
                #"{"endpoint":"https://push.example.net/x","keys":{"p256dh":"P","auth":"AAAAAAAAAAAAAAAAAAAA"}}"#,
                "holds 15 bytes"
            ),
            (
                #"{"endpoint":"https://push.example.net/x","keys":{"p256dh":"P","auth":"AAAAAAAAAAAAAAAAAAAAAAA"}}"#,
                "holds 17 bytes"
            ),
        ])
    func refusals(text: String, detail: String) throws {
        let filled = text.replacingOccurrences(of: "\"P\"", with: "\"\(Self.p256dh)\"")
            .replacingOccurrences(of: "\"A\"", with: "\"\(Self.auth)\"")
        do {
            _ = try Self.parse(filled)
            Issue.record("accepted \(filled)")
        } catch let error as WebPushError {
            #expect(error.reason == .invalidSubscription)
            #expect(error.detail.contains(detail), "\(error.detail)")
        }
    }

    @Test(
        "p256dh must be an uncompressed point on P-256: compressed, identity, off-curve and short keys are refused",
        arguments: ["compressed", "identity", "off-curve", "short", "hybrid"])
    func receiverKeys(kind: String) throws {
        var point = try #require(Base64URL.decode(Self.p256dh))
        switch kind {
        case "compressed": point = [0x02 | (point[64] & 1)] + point[1...32]
        case "identity": point = [0x00]
        case "off-curve": point[64] ^= 0x01
        case "short": point.removeLast()
        default: point[0] = 0x06
        }
        #expect(throws: WebPushError(.invalidSubscription, "")) {
            try WebPushSubscription(
                endpoint: "https://push.example.net/x", p256dh: Base64URL.encode(point), auth: Self.auth)
        }
    }

    @Test("description shows the push service's host, never the endpoint's path or the secret")
    func redaction() throws {
        let subscription = try WebPushSubscription(
            endpoint: "https://push.example.net/push/capability-token", p256dh: Self.p256dh, auth: Self.auth)
        let text = "\(subscription) \(String(reflecting: subscription))"
        #expect(text.contains("push.example.net"))
        #expect(!text.contains("capability-token"))
        #expect(!text.contains(Self.auth))
    }
}
