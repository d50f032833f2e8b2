import Foundation
import PushSealCore
import PushSealDelivery
import PushSealGatewayModel
import PushSealGatewayStorage
import PushSealPrimitives
import PushSealTestSupport
import Testing

@testable import PushSealGateway

/// The gateway as a Web Push service for iPhones (gateway-v1.md, "Web Push in"): pywebpush (PyPI)
/// posts to a device's endpoint as a Mastodon or Matrix server would, the mock APNs receives the
/// forwarded push, and `pushseal decrypt` with the device's store opens it to exactly what was
/// sent. The gateway never holds a key that opens it.
@Suite("pushseal-gateway relay (Web Push in)", .serialized)
struct GatewayRelayTests {
    static let publicURL = "https://relay.example"
    static let mastodon = #"""
        {"access_token":"oauth-9f2c41d7","preferred_locale":"en","notification_id":4207,"notification_type":"mention","icon":"https://files.example/a.png","title":"Ada mentioned you","body":"@you the parcel code is 7734-XQ"}
        """#

    /// A gateway with a relay, and an APNs device `phone` whose store holds a Web Push receiver.
    struct Relay {
        let world: GatewayWorld
        /// The receiver's keys, as `pushseal keys webpush` prints them.
        let keys: JSONObject
        /// The relay's `public_url`.
        let publicURL: String

        init(
            _ backend: GatewayBackend = .sqlite, token: String = GatewayWorld.deviceToken("00aa", 1),
            extra: String = "",
            publicURL: String = GatewayRelayTests.publicURL
        )
            throws
        {
            self.publicURL = publicURL
            world = try GatewayWorld(
                backend, settings: #""relay": {"public_url": "\#(publicURL)", "messages_burst": 5\#(extra)}"#)
            try world.registerDevice("phone", user: "u1", token: token)
            let made = try CLIRunner.run(["keys", "webpush", "--store", "store-phone"], in: world.directory.path)
            #expect(made.status == 0, "\(made.errors)")
            keys = try #require(try JSONParser.parse(made.output.trimmingCharacters(in: .newlines)).objectValue)
        }

        /// A new endpoint of `phone` (pinned to `vapidKey` when given): the public URL, and the
        /// local one to post to.
        func endpoint(vapidKey: String? = nil) throws -> (public: String, local: String) {
            let body = vapidKey.map { #"{"vapid_key":"\#($0)"}"# } ?? "{}"
            let answer = try world.request("POST", "/v1/devices/phone/webpush", json: body, token: world.adminToken)
            #expect(answer.status == 201, "\(String(decoding: answer.body, as: UTF8.self))")
            let endpoint = try #require(answer.json?["endpoint"]?.stringValue)
            return (
                endpoint, endpoint.replacingOccurrences(of: publicURL, with: "http://127.0.0.1:\(world.gateway.port)")
            )
        }

        /// Sends `content` with pywebpush to `endpoint` in `coding` (with VAPID in `vapidForm`:
        /// `rfc8292` or `draft`); the status and the `Location`.
        func send(
            _ content: String, to endpoint: String, ttl: Int = 3_600, headers: [String: String] = [:],
            vapidKey: String? = nil, aud: String? = GatewayRelayTests.publicURL, coding: String = "aes128gcm",
            vapidForm: String = "rfc8292"
        ) throws -> (status: Int?, location: String?, error: String?) {
            var request = JSONObject([
                ("endpoint", .string(endpoint)),
                ("keys", .object(JSONObject([("p256dh", keys["p256dh"] ?? .null), ("auth", keys["auth"] ?? .null)]))),
                ("content", .string(Base64URL.encode(Array(content.utf8)))), ("ttl", .number(JSONNumber(ttl))),
                ("headers", .object(JSONObject(headers.map { ($0.key, JSONValue.string($0.value)) }))),
                ("coding", .string(coding)), ("vapid_form", .string(vapidForm)),
            ])
            if let vapidKey { request["vapid_key"] = .string(vapidKey) }
            if let aud { request["aud"] = .string(aud) }
            let run = try PythonPeer.webPush(["send"], input: JSONWriter.string(.object(request)) + "\n")
            #expect(run.status == 0, "\(run.errors)")
            let answer = try #require(try JSONParser.parse(run.output.trimmingCharacters(in: .newlines)).objectValue)
            return (
                answer["status"]?.numberValue?.intValue, answer["location"]?.stringValue, answer["error"]?.stringValue
            )
        }

        /// Posts `body` to `endpoint` with `headers` (no VAPID); the answer.
        func post(_ body: [UInt8], to endpoint: String, headers: [String: String]) throws -> (Int, String) {
            let answer = try #require(
                try GatewayHTTP.send("POST", endpoint, body: Data(body), contentType: nil, headers: headers))
            return (answer.status, String(decoding: answer.body, as: UTF8.self))
        }

        /// The forwarded pushes the mock APNs received for `phone`, newest last.
        func forwarded() -> [[String: Any]] {
            world.apns.requests().filter { $0["token"] as? String == GatewayWorld.deviceToken("00aa", 1) }
        }

        /// `pushseal decrypt --store store-phone` of a received body.
        func decrypt(_ body: String, options: [String] = []) throws -> JSONObject {
            let opened = try CLIRunner.run(
                ["decrypt", "--store", "store-phone"] + options, input: Data(body.utf8), in: world.directory.path)
            return try #require(try JSONParser.parse(opened.output.trimmingCharacters(in: .newlines)).objectValue)
        }

        /// A message sealed here for the phone's receiver, `count` bytes long, padded by `block`.
        func message(count: Int, paddingBlock: Int = 1) throws -> [UInt8] {
            let subscription = try WebPushSubscription(
                endpoint: "https://relay.example/x", p256dh: keys["p256dh"]?.stringValue ?? "",
                auth: keys["auth"]?.stringValue ?? "")
            let overhead = WebPushMessage.headerByteCount + 16 + 1
            let content =
                Array(#"{"body":""#.utf8) + [UInt8](repeating: 0x61, count: max(0, count - overhead - 11))
                + Array(#""}"#.utf8)
            return try WebPushMessage.seal(content, for: subscription, paddingBlock: paddingBlock)
        }
    }

    static let standardHeaders = ["Content-Encoding": "aes128gcm", "TTL": "60"]

    @Test(
        "pywebpush posts, the APNs push carries the message unopened, and the device's store opens it to what was sent",
        arguments: GatewayBackend.allCases)
    func endToEnd(_ backend: GatewayBackend) throws {
        let relay = try Relay(backend)
        let endpoint = try relay.endpoint()
        #expect(
            endpoint.public.hasPrefix("\(Self.publicURL)/v1/webpush/")
                && endpoint.public.count == "\(Self.publicURL)/v1/webpush/".count + 43)
        let sent = try relay.send(Self.mastodon, to: endpoint.local, headers: ["Urgency": "high", "Topic": "status-1"])
        #expect(sent.status == 201, "\(sent.error ?? "")")
        #expect(sent.location?.hasPrefix("\(Self.publicURL)/v1/pushes/") == true)
        #expect(relay.world.eventually { relay.forwarded().count == 1 })
        let request = try #require(relay.forwarded().first)
        #expect(
            request["status"] as? Int == 200, "APNs (the mock) takes the forwarded push: \(request["reason"] ?? "")")
        let pushID = try #require(sent.location?.split(separator: "/").last.map(String.init))
        #expect(
            try relay.world.eventually {
                try relay.world.store.push(id: pushID, in: .default)?.deliveries.first?.status == .sent
            })
        let headers = try #require(request["headers"] as? [String: String])
        #expect(headers["apns-push-type"] == "alert" && headers["apns-priority"] == "10")
        #expect(headers["apns-collapse-id"] == "status-1")
        let expiration = Int(headers["apns-expiration"] ?? "") ?? 0
        #expect(abs(expiration - Int(Date().timeIntervalSince1970) - 3_600) < 30, "TTL becomes apns-expiration")
        let body = try #require(request["body"] as? String)
        #expect(!body.contains("7734-XQ") && !body.contains("Ada"), "the relay forwards ciphertext only")
        let outer = try #require(try JSONParser.parse(Array(body.utf8)).objectValue)
        #expect(outer["aps"]?.objectValue?["mutable-content"] == .number(JSONNumber(1)))
        let endpointName = String(try #require(endpoint.public.split(separator: "/").last).prefix(8))
        #expect(outer["webpush_endpoint"] == .string(endpointName), "the endpoint it was posted to, by its prefix")
        let opened = try relay.decrypt(body)
        #expect(opened["status"] == .string("decrypted") && opened["format"] == .string("webpush"), "\(opened)")
        #expect(opened["kid"] == relay.keys["kid"])
        let notification = try #require(opened["notification"]?.objectValue)
        #expect(notification["title"] == .string("Ada mentioned you"))
        #expect(notification["body"] == .string("@you the parcel code is 7734-XQ"))
        // What the sender set is handed to the app apart from what the backend sets.
        let relayed = try #require(notification["userInfo"]?.objectValue?["relayed"]?.objectValue)
        let original = try #require(try JSONParser.parse(Array(Self.mastodon.utf8)).objectValue)
        for member in original.members where member.name != "access_token" {
            #expect(relayed[member.name] == member.value, "\(member.name)")
        }
        #expect(relayed["endpoint"] == .string(endpointName))
        // Mastodon's OAuth token is in no part of what is shown nor printed.
        #expect(!JSONWriter.string(.object(opened)).contains("oauth-9f2c41d7"), "\(opened)")

        let low = try relay.send(#"{"title":"t","body":"b"}"#, to: endpoint.local, ttl: 0, headers: ["Urgency": "low"])
        #expect(low.status == 201)
        #expect(relay.world.eventually { relay.forwarded().count == 2 })
        let lowHeaders = try #require(relay.forwarded().last?["headers"] as? [String: String])
        #expect(lowHeaders["apns-priority"] == "5" && lowHeaders["apns-expiration"] == "0", "\(lowHeaders)")

        // Declarative Web Push, from the same sender: shown natively, its page for the app's router.
        let declarative = try relay.send(
            #"{"web_push":8030,"notification":{"title":"Ada","body":"Mentioned you","navigate":"https://social.example/n/7","app_badge":2}}"#,
            to: endpoint.local)
        #expect(declarative.status == 201)
        #expect(relay.world.eventually { relay.forwarded().count == 3 })
        let shown = try relay.decrypt(try #require(relay.forwarded().last?["body"] as? String))
        let declared = try #require(shown["notification"]?.objectValue)
        #expect(declared["title"] == .string("Ada") && declared["body"] == .string("Mentioned you"), "\(declared)")
        #expect(declared["badge"] == .number(JSONNumber(2)), "\(declared)")
        #expect(
            declared["userInfo"]?.objectValue?["relayed"]?.objectValue?["navigate"]
                == .string("https://social.example/n/7"))
    }

    @Test(
        "the inline limit, measured: forwarded in the push at it with either padding, kept to fetch one byte past it, 413 past RFC 8030's 4,096 bytes"
    )
    func sizes() throws {
        let relay = try Relay()
        let endpoint = try relay.endpoint()
        let limit = ForwardedWebPush.maximumMessageByteCount(
            placeholder: ("New notification", "Open the app to view it."))
        let exact = try relay.message(count: limit)
        #expect(exact.count == limit)
        #expect(try relay.post(exact, to: endpoint.local, headers: Self.standardHeaders).0 == 201)
        let overhead = WebPushMessage.headerByteCount + 16
        let padded = try relay.message(
            count: overhead + (limit - overhead) / 128 * 128, paddingBlock: WebPushMessage.defaultPaddingBlock)
        #expect(padded.count <= limit && padded.count > limit - 128, "\(padded.count)")
        #expect(try relay.post(padded, to: endpoint.local, headers: Self.standardHeaders).0 == 201)
        let over = try relay.message(count: limit + 1)
        #expect(try relay.post(over, to: endpoint.local, headers: Self.standardHeaders).0 == 201)
        var beyond = over
        beyond += [UInt8](repeating: 0, count: WebPushMessage.maximumByteCount + 1 - over.count)
        let refused = try relay.post(beyond, to: endpoint.local, headers: Self.standardHeaders)
        #expect(refused.0 == 413 && refused.1.contains("4096"), "\(refused)")
        #expect(relay.world.eventually { relay.forwarded().count == 3 })
        // The log finds the kept content by a prefix of its id; the whole id (which, with five
        // wrong capabilities, deletes it) is nowhere in the log.
        let keptID = try #require(
            try (relay.world.store as? any SQLExecutor)?.read("SELECT id FROM fetch_objects", []).first?.first?.text)
        let received = relay.world.logged("webpush-received")
        #expect(received.map { $0["fetch"] } == [.null, .null, .string(String(keptID.prefix(8)))], "\(received)")
        #expect(!relay.world.logText.contains(keptID), "the whole id of the content to fetch is logged")
        for (index, request) in relay.forwarded().enumerated() {
            let body = try #require(request["body"] as? String)
            #expect(body.utf8.count <= 4_096)
            let payload = try #require(try JSONParser.parse(Array(body.utf8)).objectValue)
            if index < 2 {
                #expect(try relay.decrypt(body)["status"] == .string("decrypted"))
            } else {
                #expect(payload["webpush"] == nil && payload["enc"] != nil, "a reference, sealed to the device")
                let name = String(try #require(endpoint.public.split(separator: "/").last).prefix(8))
                #expect(payload["webpush_endpoint"] == .string(name), "the endpoint in clear, as forwarded inline")

            }
        }
    }

    @Test("what RFC 8030 refuses: the content coding, TTL, Urgency, Topic, a body that is no message; then the rate")
    func refusals() throws {
        let relay = try Relay()
        let endpoint = try relay.endpoint()
        let message = try relay.message(count: 300)
        for (headers, expected) in [
            (["TTL": "60"], "Content-Encoding is missing"),
            (["Content-Encoding": "aesgcm", "TTL": "60"], "aesgcm"),
            (["Content-Encoding": "aes128gcm"], "TTL"),
            (["Content-Encoding": "aes128gcm", "TTL": "soon"], "TTL"),
            (["Content-Encoding": "aes128gcm", "TTL": "60", "Urgency": "urgent"], "Urgency"),
            (["Content-Encoding": "aes128gcm", "TTL": "60", "Topic": "not/base64url"], "Topic"),
        ] {
            let answer = try relay.post(message, to: endpoint.local, headers: headers)
            #expect(answer.0 == 400 && answer.1.contains(expected), "\(headers): \(answer)")
        }
        let empty = try relay.post([], to: endpoint.local, headers: ["TTL": "60"])
        #expect(empty.0 == 400 && empty.1.contains("no content"), "\(empty)")
        // RFC 8030 §5.2 allows any number of digits; the TTL kept is answered.
        let long = try #require(
            try GatewayHTTP.send(
                "POST", endpoint.local, body: Data(message), contentType: nil,
                headers: ["Content-Encoding": "aes128gcm", "TTL": "99999999999"]))
        #expect(long.status == 201 && long.headers["ttl"] == "\(InboundMessage.maximumTTL)", "\(long.headers)")
        let garbage = try relay.post(Array(repeating: 7, count: 200), to: endpoint.local, headers: Self.standardHeaders)
        #expect(garbage.0 == 400 && garbage.1.contains("aes128gcm"), "\(garbage)")
        let unknown = endpoint.local.dropLast(43) + String(repeating: "A", count: 43)
        #expect(try relay.post(message, to: String(unknown), headers: Self.standardHeaders).0 == 404)
        #expect(try relay.post(message, to: String(endpoint.local.dropLast(3)), headers: Self.standardHeaders).0 == 404)
        var statuses: [Int] = []
        for _ in 0..<8 { statuses.append(try relay.post(message, to: endpoint.local, headers: Self.standardHeaders).0) }
        #expect(statuses.prefix(4).allSatisfy { $0 == 201 } && statuses.last == 429, "a burst of 5: \(statuses)")
        let metrics = String(decoding: try relay.world.request("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"pushseal_gateway_webpush_received_total{status="201"} 5"#))
        #expect(metrics.contains(#"pushseal_gateway_rate_limited_total{limit="messages"}"#))
    }

    @Test("a TTL is read whole, leading zeros and all: 0000000000 is now or never, not 28 days")
    func ttlWithLeadingZeros() throws {
        let relay = try Relay()
        let endpoint = try relay.endpoint()
        let message = try relay.message(count: 300)
        let sent = ["0000000120", "0000000000", "00000000000000002419201"]
        for (ttl, kept) in zip(sent, ["120", "0", "\(InboundMessage.maximumTTL)"]) {
            let answer = try #require(
                try GatewayHTTP.send(
                    "POST", endpoint.local, body: Data(message), contentType: nil,
                    headers: ["Content-Encoding": "aes128gcm", "TTL": ttl]))
            #expect(answer.status == 201 && answer.headers["ttl"] == kept, "TTL \(ttl): \(answer.headers)")
        }
        #expect(relay.world.eventually { relay.forwarded().count == sent.count })
        // In the order they were sent or not, the three expirations APNs got.
        let expirations = relay.forwarded().compactMap {
            ($0["headers"] as? [String: String])?["apns-expiration"].flatMap { Int($0) }
        }.sorted()
        let now = Int(Date().timeIntervalSince1970)
        #expect(expirations.count == 3 && expirations.first == 0, "now or never reaches APNs as 0: \(expirations)")
        #expect(expirations.count == 3 && abs(expirations[1] - now - 120) < 30, "\(expirations)")
        #expect(expirations.count == 3 && abs(expirations[2] - now - InboundMessage.maximumTTL) < 30, "\(expirations)")
    }

    @Test("an endpoint answers 410 once removed, its device deleted, or its token gone at APNs; other senders 404")
    func gone() throws {
        let relay = try Relay()
        let first = try relay.endpoint()
        let second = try relay.endpoint()
        #expect(first.public != second.public, "each call makes a new endpoint")
        let message = try relay.message(count: 300)
        let id = String(first.public.suffix(43))
        #expect(try relay.world.request("DELETE", "/v1/webpush/\(id)", token: relay.world.adminToken).status == 204)
        #expect(try relay.post(message, to: first.local, headers: Self.standardHeaders).0 == 410)
        #expect(try relay.world.request("DELETE", "/v1/webpush/\(id)", token: relay.world.adminToken).status == 404)
        #expect(try relay.post(message, to: second.local, headers: Self.standardHeaders).0 == 201)
        #expect(try relay.world.request("DELETE", "/v1/devices/phone", token: relay.world.adminToken).status == 204)
        #expect(try relay.post(message, to: second.local, headers: Self.standardHeaders).0 == 410)

        let leaving = try Relay(token: GatewayWorld.deviceToken("0411", 2))
        let endpoint = try leaving.endpoint()
        let gone = try leaving.message(count: 300)
        #expect(try leaving.post(gone, to: endpoint.local, headers: Self.standardHeaders).0 == 201)
        #expect(
            try leaving.world.eventually {
                try leaving.world.store.device(id: "phone", in: .default)?.unregisteredAt != nil
            })
        #expect(try leaving.post(gone, to: endpoint.local, headers: Self.standardHeaders).0 == 410, "APNs said 410")
    }

    @Test(
        "an endpoint belongs to its registration: the same registration again keeps it; another user, another token, or a 410 ends it for good",
        arguments: GatewayBackend.allCases)
    func endsWithItsRegistration(_ backend: GatewayBackend) throws {
        let relay = try Relay(backend)
        let world = relay.world
        let message = try relay.message(count: 300)
        let token = GatewayWorld.deviceToken("00aa", 1)
        let kept = try relay.endpoint()
        #expect(
            try world.registerDevice("phone", user: "u1", token: token).status == 200, "registered again, as at launch")
        #expect(try relay.post(message, to: kept.local, headers: Self.standardHeaders).0 == 201)
        #expect(try world.registerDevice("phone", user: "u2", token: token).status == 200)
        #expect(try relay.post(message, to: kept.local, headers: Self.standardHeaders).0 == 410, "another user")
        let second = try relay.endpoint()
        #expect(try world.registerDevice("phone", user: "u2", token: GatewayWorld.deviceToken("00aa", 2)).status == 200)
        #expect(try relay.post(message, to: second.local, headers: Self.standardHeaders).0 == 410, "another token")
        let third = try relay.endpoint()
        #expect(try world.request("DELETE", "/v1/devices/phone", token: world.adminToken).status == 204)
        #expect(try world.registerDevice("phone", user: "u2", token: GatewayWorld.deviceToken("00aa", 2)).status == 201)
        #expect(
            try relay.post(message, to: third.local, headers: Self.standardHeaders).0 == 410,
            "deleted, then the same registration made anew: the endpoint ended with the deletion")

        let leaving = try Relay(backend, token: GatewayWorld.deviceToken("0411", 3))
        let endpoint = try leaving.endpoint()
        let gone = try leaving.message(count: 300)
        #expect(try leaving.post(gone, to: endpoint.local, headers: Self.standardHeaders).0 == 201)
        #expect(
            try leaving.world.eventually {
                try leaving.world.store.device(id: "phone", in: .default)?.unregisteredAt != nil
            })
        #expect(
            try leaving.world.registerDevice("phone", user: "u1", token: GatewayWorld.deviceToken("0411", 3)).status
                == 200)
        #expect(
            try leaving.post(gone, to: endpoint.local, headers: Self.standardHeaders).0 == 410,
            "APNs' 410 ended it; registering again does not bring it back")
    }

    @Test(
        "an endpoint is made only for a registered APNs device: 404 for none, 422 for a subscription or an unregistered one"
    )
    func endpointsOnlyForAPNsDevices() throws {
        let world = try GatewayWorld(settings: #""relay": {"public_url": "\#(Self.publicURL)"}"#, webPush: true)
        try world.registerSubscription("browser", user: "u1", service: 0)
        try world.registerDevice("gone", user: "u1", token: GatewayWorld.deviceToken("0411", 1))
        #expect(try world.request("POST", "/v1/devices/gone/test", token: world.adminToken).status == 200)
        #expect(try world.eventually { try world.store.device(id: "gone", in: .default)?.unregisteredAt != nil })
        func make(_ id: String) throws -> GatewayHTTP.Answer {
            try world.request("POST", "/v1/devices/\(id)/webpush", json: "{}", token: world.adminToken)
        }
        #expect(try make("nobody").status == 404)
        let subscription = try make("browser")
        #expect(subscription.status == 422 && subscription.json?["endpoint"] == nil, "\(subscription.status)")
        let unregistered = try make("gone")
        #expect(unregistered.status == 422 && unregistered.json?["endpoint"] == nil, "\(unregistered.status)")
    }

    @Test("a registration that pinned the sender's VAPID key takes that key alone, signed for this origin")
    func pinnedVAPID() throws {
        let relay = try Relay()
        let keyFile = try MockAPNs.makeAuthKey(relay.world.directory.file("vapid.pem"))
        var pem = Array(try Data(contentsOf: URL(fileURLWithPath: keyFile)))
        let publicKey = try VAPIDKey(wipingFileBytes: &pem).publicKey
        let otherFile = try MockAPNs.makeAuthKey(relay.world.directory.file("other.pem"))
        let endpoint = try relay.endpoint(vapidKey: publicKey)
        #expect(try relay.send(Self.mastodon, to: endpoint.local, vapidKey: keyFile).status == 201)
        #expect(try relay.send(Self.mastodon, to: endpoint.local).status == 401, "no VAPID")
        #expect(try relay.send(Self.mastodon, to: endpoint.local, vapidKey: otherFile).status == 403, "another key")
        let wrongAudience = try relay.send(
            Self.mastodon, to: endpoint.local, vapidKey: keyFile, aud: "https://else.example")
        #expect(wrongAudience.status == 401 && wrongAudience.error?.contains("aud") == true, "\(wrongAudience)")
        let unpinned = try relay.endpoint()
        #expect(try relay.send(Self.mastodon, to: unpinned.local, vapidKey: otherFile).status == 201, "unpinned: any")
        let invalid = try relay.world.request(
            "POST", "/v1/devices/phone/webpush", json: #"{"vapid_key":"bm90IGEga2V5"}"#, token: relay.world.adminToken)
        #expect(invalid.status == 400 && invalid.errorPath == "$.vapid_key")
    }
}
