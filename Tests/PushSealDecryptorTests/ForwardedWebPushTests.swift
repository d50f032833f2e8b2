import Foundation
import PushSealPrimitives
import PushSealTestSupport
import Testing

@testable import PushSealCore
@testable import PushSealDecryptor

/// Web Push messages forwarded to an iPhone in an APNs payload (webpush-v1.md, "Forwarded to an
/// iPhone"): the store's receiver, the extension opening them, the standard mapping and a custom
/// one, every failure degrading to the placeholder with its reason.
@Suite("Decryptor: forwarded Web Push messages")
struct ForwardedWebPushTests {
    static let placeholder: (title: String?, body: String?) = ("You have a notification", "Tap to open it")
    static let mastodon = #"""
        {"access_token":"oauth-9f2c41d7","preferred_locale":"en","notification_id":4207,"notification_type":"mention","icon":"https://files.example/a.png","title":"Ada mentioned you","body":"@you the parcel code is 7734-XQ"}
        """#

    /// A store with a Web Push receiver, and the subscription a sender seals for.
    struct Phone {
        let directory = TemporaryDirectory()
        let store: FileKeyStore
        let keys: WebPushKeys

        init() throws {
            store = try FileKeyStore.initialize(directory: directory.file("store"))
            keys = try store.webPushKeys()
        }

        var subscription: WebPushSubscription {
            get throws {
                try WebPushSubscription(
                    endpoint: "https://relay.example/v1/webpush/abc", p256dh: keys.p256dh, auth: keys.auth)
            }
        }

        /// The forwarded payload of `content` sealed for this phone, posted to the relay endpoint
        /// named `endpoint`.
        func forwarded(
            _ content: String, endpoint: String? = "Xk3v9QaZ", paddingBlock: Int = WebPushMessage.defaultPaddingBlock
        ) throws -> JSONObject {
            let message = try WebPushMessage.seal(
                Array(content.utf8), for: try subscription, paddingBlock: paddingBlock)
            return ForwardedWebPush.payload(
                message: message, endpoint: endpoint, placeholder: ForwardedWebPushTests.placeholder)
        }

        /// The forwarded payload of `content` sealed for this phone in the legacy aesgcm coding,
        /// with `padding` zero bytes, posted to the relay endpoint named `endpoint`.
        func forwardedAESGCM(_ content: String, endpoint: String? = "Xk3v9QaZ", padding: Int = 0) throws
            -> JSONObject
        {
            let message = try AESGCMMessage.seal(Array(content.utf8), for: try subscription, padding: padding)
            return ForwardedWebPush.payload(
                message: message.frame, coding: .aesgcm, endpoint: endpoint,
                placeholder: ForwardedWebPushTests.placeholder)
        }

        func decryptor(mapping: @escaping WebPushContent.Mapping = WebPushContent.standard) -> Decryptor {
            Decryptor(keyStore: store, ledger: store.ledger, webPushMapping: mapping)
        }
    }

    @Test("the store makes one receiver and keeps it; keys list shows it, never its key")
    func receiver() throws {
        let phone = try Phone()
        let again = try phone.store.webPushKeys()
        #expect(again.kid == phone.keys.kid && again.p256dh == phone.keys.p256dh && again.auth == phone.keys.auth)
        #expect(Base64URL.decode(phone.keys.p256dh)?.count == 65 && Base64URL.decode(phone.keys.auth)?.count == 16)
        let entries = try phone.store.entries().filter { $0.role == .webPush }
        #expect(entries.count == 1 && entries[0].current && entries[0].kid == phone.keys.kid)
        #expect(!"\(entries[0].listing)".contains(phone.keys.auth) && !"\(phone.keys)".contains(phone.keys.auth))
        #expect(try phone.store.loadWebPushReceivers().count == 1)
        #expect(try phone.store.loadKeyRing().deviceKeys.isEmpty, "a receiver is no envelope key")
    }

    @Test(
        "a Mastodon notification opens, in either coding: its title and body shown with a sound, the rest but its token in userInfo.relayed, a repeat recorded once",
        arguments: WebPushCoding.allCases)
    func mastodon(_ coding: WebPushCoding) throws {
        let phone = try Phone()
        let forward = { (content: String) throws -> JSONObject in
            coding == .aesgcm ? try phone.forwardedAESGCM(content, padding: 9) : try phone.forwarded(content)
        }
        let payload = try forward(Self.mastodon)
        #expect(payload[coding.payloadMember] != nil && payload.members.count == 3, "\(payload)")
        let result = phone.decryptor().open(payload)
        #expect(result.status == .decrypted && result.reason == nil && result.webPushReceiver == phone.keys.kid)
        #expect(result.notification.title == "Ada mentioned you")
        #expect(result.notification.body == "@you the parcel code is 7734-XQ")
        #expect(result.notification.sound == .string("default"), "a Mastodon notification sounds, as in a browser")
        let relayed = try #require(result.notification.userInfo[RelayedContent.member]?.objectValue)
        #expect(relayed["notification_type"] == .string("mention") && relayed["endpoint"] == .string("Xk3v9QaZ"))
        #expect(
            relayed["icon"] == .string("https://files.example/a.png") && relayed["preferred_locale"] == .string("en"))
        #expect(relayed["event_id"] == .string("4207"), "notification_id becomes the sender's event_id")
        #expect(relayed["access_token"] == nil, "the account's OAuth token is never handed on")
        #expect(!JSONWriter.string(.object(result.json)).contains("oauth-9f2c41d7"), "nor printed")
        #expect(
            result.notification.userInfo.members.map(\.name).filter { $0 != "aps" } == [RelayedContent.member],
            "nothing else at the top")
        #expect(result.notification.userInfo[coding.payloadMember] == nil, "the outer payload is dropped")
        #expect(result.json["format"] == .string("webpush") && result.json["kid"] == .string(phone.keys.kid))
        #expect(!result.duplicate)
        #expect(phone.decryptor().open(try forward(Self.mastodon)).duplicate, "sent again: a repeat")
    }

    @Test("an aesgcm frame that does not open degrades with its reason; a payload with both codings is malformed")
    func aesgcmRefusals() throws {
        let phone = try Phone()
        let payload = try phone.forwardedAESGCM("hello")
        var frame = try #require(try ForwardedWebPush.message(in: payload)).bytes
        frame[frame.count - 1] ^= 1
        let tampered = ForwardedWebPush.payload(
            message: frame, coding: .aesgcm, endpoint: "Xk3v9QaZ", placeholder: Self.placeholder)
        let failed = phone.decryptor().open(tampered)
        #expect(failed.status == .degraded && failed.reason == .decryptionFailed)
        #expect(failed.notification.title == Self.placeholder.title, "the placeholder, as it arrived")
        let cut = ForwardedWebPush.payload(
            message: Array(frame.prefix(70)), coding: .aesgcm, endpoint: nil, placeholder: Self.placeholder)
        #expect(phone.decryptor().open(cut).reason == .malformedEnvelope)
        var both = payload
        both[ForwardedWebPush.member] = payload[ForwardedWebPush.aesgcmMember]
        #expect(phone.decryptor().open(both).reason == .malformedEnvelope)
        #expect(Decryptor.reason(WebPushError(.paddingTooLong, "")) == .malformedContent)
        #expect(Decryptor.reason(WebPushError(.nonZeroPadding, "")) == .malformedContent)
    }

    @Test(
        "Declarative Web Push opens natively: title, body, badge, sound and thread, navigate and data in userInfo, a repeat recorded once"
    )
    func declarative() throws {
        let phone = try Phone()
        // As PushSeal's gateway writes it for a browser: the badge in notification, silent.
        let gateway = #"""
            {"web_push":8030,"notification":{"title":"Order 1042","body":"Arrives Thursday","navigate":"https://shop.example.com/orders/1042","tag":"order-1042","app_badge":3,"silent":true,"lang":"en-GB","dir":"ltr","data":{"event_id":"e-1042","order":1042}}}
            """#
        let result = phone.decryptor().open(try phone.forwarded(gateway))
        #expect(result.status == .decrypted && result.reason == nil)
        let shown = result.notification
        #expect(shown.title == "Order 1042" && shown.body == "Arrives Thursday")
        #expect(shown.badge == 3 && shown.sound == nil && shown.threadIdentifier == "order-1042")
        let relayed = try #require(shown.userInfo[RelayedContent.member]?.objectValue)
        #expect(relayed["navigate"] == .string("https://shop.example.com/orders/1042"), "for the app's router")
        #expect(relayed["lang"] == .string("en-GB") && relayed["dir"] == .string("ltr"))
        #expect(relayed["order"] == .number(JSONNumber(1042)) && relayed["event_id"] == .string("e-1042"))
        #expect(relayed["web_push"] == nil && relayed["notification"] == nil, "read, not passed on")
        #expect(shown.userInfo.members.map(\.name).filter { $0 != "aps" } == [RelayedContent.member])
        #expect(phone.decryptor().open(try phone.forwarded(gateway)).duplicate, "its data's event_id: a repeat")

        // As the Push API places them: app_badge and mutable at the top level (WebKit's badge a
        // string of digits); not silent, so the default sound; data that is not an object kept whole.
        let standard = #"""
            {"web_push":8030,"app_badge":"12","mutable":true,"notification":{"title":"Ada","navigate":"https://social.example/n/1","app_badge":5,"data":[1,2]}}
            """#
        let placed = phone.decryptor().open(try phone.forwarded(standard)).notification
        #expect(placed.title == "Ada" && placed.body == nil)
        #expect(placed.badge == 12, "the top level's first")
        #expect(placed.sound == .string("default") && placed.threadIdentifier == nil)
        #expect(
            placed.userInfo[RelayedContent.member]?.objectValue?["data"]
                == .array([.number(JSONNumber(1)), .number(JSONNumber(2))]))

        // Not declarative: another marker, or no notification object; read as any other object.
        for content in [
            #"{"web_push":8031,"title":"Plain","notification":{"title":"Declared"}}"#,
            #"{"web_push":8030,"title":"Plain","notification":"Declared"}"#,
        ] {
            let other = phone.decryptor().open(try phone.forwarded(content)).notification
            #expect(other.title == "Plain" && other.sound == nil, "\(content)")
        }
        // Badges that are not counts are left out, never refused.
        for badge in [#"-1"#, #""-1""#, #""3a""#, "true", #""""#, "1.5"] {
            let content = #"{"web_push":8030,"notification":{"title":"T","app_badge":\#(badge)}}"#
            let opened = phone.decryptor().open(try phone.forwarded(content))
            #expect(opened.status == .decrypted && opened.notification.badge == nil, "\(badge)")
        }
    }

    @Test(
        "a replayed message is a duplicate though its content has no event_id, a rewritten record size included; the same content sealed again is new"
    )
    func replays() throws {
        let phone = try Phone()
        let payload = try phone.forwarded("You have 3 new messages")
        #expect(!phone.decryptor().open(payload).duplicate)
        let replayed = phone.decryptor().open(payload)
        #expect(replayed.status == .decrypted && replayed.duplicate, "captured and posted again")
        // The record size is bound to nothing: a one-record message opens under any size that holds it.
        var message = try #require(try ForwardedWebPush.message(in: payload)).bytes
        message.replaceSubrange(16..<20, with: [0, 0, 0x0F, 0xFF])
        let resized = phone.decryptor().open(
            ForwardedWebPush.payload(message: message, endpoint: "Xk3v9QaZ", placeholder: Self.placeholder))
        #expect(resized.status == .decrypted && resized.duplicate, "another record size is the same message")
        #expect(!phone.decryptor().open(try phone.forwarded("You have 3 new messages")).duplicate, "a new salt")
        let counts = try phone.store.ledger.outcomeCounts()
        #expect(counts["duplicate"] == 2 && counts["decrypted"] == 2, "\(counts)")
        #expect(
            try WebPushMessage.replayIdentity(message)
                == WebPushMessage.replayIdentity(
                    try #require(try ForwardedWebPush.message(in: payload)).bytes))
        #expect(throws: WebPushError.self) { try WebPushMessage.replayIdentity(Array(message.prefix(40))) }
    }

    @Test("content that is an APNs payload is shown as one; text becomes the body; an app maps its own sender")
    func mappings() throws {
        let phone = try Phone()
        let apns = phone.decryptor().open(try phone.forwarded(#"{"aps":{"alert":{"title":"T","body":"B"},"badge":3}}"#))
        #expect(apns.notification.title == "T" && apns.notification.badge == 3)
        let text = phone.decryptor().open(try phone.forwarded("You have 3 new messages"))
        #expect(text.status == .decrypted && text.notification.body == "You have 3 new messages")
        let custom = phone.decryptor { content in
            guard let object = (try? JSONParser.parse(content))?.objectValue,
                let room = object["room_name"]?.stringValue
            else { return nil }
            return JSONObject([
                ("aps", .object(JSONObject([("alert", .object(JSONObject([("title", .string(room))])))])))
            ])
        }
        #expect(
            custom.open(try phone.forwarded(#"{"room_name":"Lobby","event_id":"$e1"}"#)).notification.title == "Lobby")
        let unmapped = custom.open(try phone.forwarded(#"{"other":1}"#))
        #expect(unmapped.status == .degraded && unmapped.reason == .malformedContent)
        #expect(unmapped.notification.title == "You have a notification", "the placeholder, as it arrived")
    }

    @Test(
        "what a relay sender sets stays apart from the backend's: no member, event_id, media or route of the app's; each endpoint's ids its own"
    )
    func relayedApart() throws {
        let phone = try Phone()
        let contract = try PayloadContract(
            json: Array(#"{"schema_versions":[1],"routes":{"order":{"id":"uuid"}}}"#.utf8))
        let decryptor = Decryptor(keyStore: phone.store, ledger: phone.store.ledger, contract: contract)
        // An APNs-shaped message as a backend's: its alert is shown, its members kept apart.
        let lookalike = #"""
            {"aps":{"alert":{"title":"Order shipped","body":"Track it"}},"type":"order","id":"0b5f7e1c-3c5a-4a39-9d63-4a3f4c1e2b7d","schema_version":1,"event_id":"e-1","media":{"url":"https://tracker.example/p.psm"}}
            """#
        let result = decryptor.open(try phone.forwarded(lookalike, endpoint: "AAAAaaaa"))
        #expect(result.status == .decrypted && result.notification.title == "Order shipped")
        #expect(result.notification.userInfo["type"] == nil && result.notification.userInfo["event_id"] == nil)
        #expect(result.notification.userInfo["media"] == nil, "no media fetched for a relay sender")
        #expect(result.route == nil, "the backend's contract routes no relayed message")
        let relayed = try #require(result.notification.userInfo[RelayedContent.member]?.objectValue)
        #expect(relayed["type"] == .string("order") && relayed["endpoint"] == .string("AAAAaaaa"))
        // The backend's own push with that event_id is not the sender's repeat, nor the reverse.
        let ledger = phone.store.ledger
        #expect(try ledger.record(eventID: "e-1") == .new, "the backend's e-1 is new")
        // Two servers, each counting its notifications from 1: both shown; a repeat of one is one.
        let first = decryptor.open(try phone.forwarded(#"{"title":"A","notification_id":1}"#, endpoint: "server-a"))
        let second = decryptor.open(try phone.forwarded(#"{"title":"B","notification_id":1}"#, endpoint: "server-b"))
        #expect(!first.duplicate && !second.duplicate, "another sender's id 1 is not a repeat")
        let again = decryptor.open(try phone.forwarded(#"{"title":"A","notification_id":1}"#, endpoint: "server-a"))
        #expect(again.duplicate, "the same sender's id 1 again")
        // A relay before 1.4.0 names no endpoint: still apart from the backend's ids.
        let unnamed = decryptor.open(try phone.forwarded(#"{"title":"C","notification_id":"e-1"}"#, endpoint: nil))
        #expect(
            !unnamed.duplicate && unnamed.notification.userInfo[RelayedContent.member]?.objectValue?["endpoint"] == nil)
    }

    @Test("tampered, truncated, re-ordered, foreign and malformed messages degrade with their reasons")
    func failures() throws {
        let phone = try Phone()
        let other = try Phone()
        let payload = try phone.forwarded(Self.mastodon)
        let message = try #require(try ForwardedWebPush.message(in: payload)).bytes
        func reason(_ bytes: [UInt8], _ decryptor: Decryptor? = nil) -> PushSealError.Code? {
            let forwarded = ForwardedWebPush.payload(
                message: bytes, endpoint: "Xk3v9QaZ", placeholder: Self.placeholder)
            let result = (decryptor ?? phone.decryptor()).open(forwarded)
            #expect(result.status == .degraded && result.notification.body == "Tap to open it")
            return result.reason
        }
        var tampered = message
        tampered[tampered.count - 20] ^= 1
        #expect(reason(tampered) == .decryptionFailed)
        #expect(reason(Array(message.dropLast(5))) == .decryptionFailed, "truncated")
        let header = WebPushMessage.headerByteCount
        let reordered =
            Array(message[..<header]) + Array(message[(header + 16)...]) + Array(message[header..<(header + 16)])
        #expect(reason(reordered) == .decryptionFailed, "re-ordered")
        #expect(reason(Array(message.prefix(40))) == .malformedEnvelope, "a header cut short")
        #expect(reason(message, other.decryptor()) == .decryptionFailed, "another phone's receiver")
        let bare = try FileKeyStore.initialize(directory: phone.directory.file("bare"))
        #expect(reason(message, Decryptor(keyStore: bare)) == .unknownKey, "a store without a receiver")
        var padded = try phone.forwarded(Self.mastodon)
        padded["webpush"] = .string("not base64url!")
        #expect(phone.decryptor().open(padded).reason == .malformedEnvelope)
        padded["webpush"] = .string("")
        #expect(phone.decryptor().open(padded).reason == .malformedEnvelope, "empty")

        _ = try phone.store.changePolicy { $0.requireSealed = true }
        let neutral = phone.decryptor().open(
            ForwardedWebPush.payload(message: tampered, endpoint: "Xk3v9QaZ", placeholder: Self.placeholder))
        #expect(
            neutral.status == .degraded && neutral.notification.title == StorePolicy(requireSealed: true).neutralTitle)
        #expect(phone.decryptor().open(payload).status == .decrypted, "a message that opens counts as sealed")
    }

    @Test("both paddings at the edge: the largest message that fits APNs with the placeholder opens")
    func limit() throws {
        let phone = try Phone()
        let limit = ForwardedWebPush.maximumMessageByteCount(placeholder: Self.placeholder)
        let room = limit - WebPushMessage.headerByteCount - 16
        // The record's plaintext fills the room exactly (padding 1), or the largest multiple of 128 in it.
        for (block, plaintext) in [(1, room), (WebPushMessage.defaultPaddingBlock, room / 128 * 128)] {
            let contentCount = plaintext - 1
            let content = #"{"body":""# + String(repeating: "x", count: contentCount - 11) + #""}"#
            let message = try WebPushMessage.seal(Array(content.utf8), for: try phone.subscription, paddingBlock: block)
            #expect(message.count == WebPushMessage.headerByteCount + 16 + plaintext, "padding \(block)")
            let payload = ForwardedWebPush.payload(
                message: message, endpoint: "Xk3v9QaZ", placeholder: Self.placeholder)
            #expect(JSONWriter.bytes(.object(payload)).count <= ForwardedWebPush.apnsLimit)
            #expect(phone.decryptor().open(payload).notification.body?.count == contentCount - 11)
        }
        let over = ForwardedWebPush.payload(
            message: [UInt8](repeating: 7, count: limit + 1), endpoint: "Xk3v9QaZ", placeholder: Self.placeholder)
        #expect(JSONWriter.bytes(.object(over)).count > ForwardedWebPush.apnsLimit, "one byte more does not fit")
        let documented = ForwardedWebPush.maximumMessageByteCount(
            placeholder: ("New notification", "Open the app to view it."))
        #expect(documented == 2_964, "webpush-v1.md states the limit for its example placeholder: \(documented)")
    }
}

extension ForwardedWebPushTests {
    @Test("aesgcm at the edge: the largest frame that fits APNs with the placeholder opens; one byte more does not fit")
    func aesgcmLimit() throws {
        let phone = try Phone()
        let limit = ForwardedWebPush.maximumMessageByteCount(placeholder: Self.placeholder, coding: .aesgcm)
        // The frame: an 86-byte header, the 16-byte tag, the 2-byte padding length, the content.
        let contentCount = limit - 86 - 16 - 2
        let content = #"{"body":""# + String(repeating: "x", count: contentCount - 11) + #""}"#
        let payload = try phone.forwardedAESGCM(content)
        #expect(try ForwardedWebPush.message(in: payload)?.bytes.count == limit)
        #expect(JSONWriter.bytes(.object(payload)).count <= ForwardedWebPush.apnsLimit)
        #expect(phone.decryptor().open(payload).notification.body?.count == contentCount - 11)
        let over = ForwardedWebPush.payload(
            message: [UInt8](repeating: 7, count: limit + 1), coding: .aesgcm, endpoint: "Xk3v9QaZ",
            placeholder: Self.placeholder)
        #expect(JSONWriter.bytes(.object(over)).count > ForwardedWebPush.apnsLimit, "one byte more does not fit")
        let documented = ForwardedWebPush.maximumMessageByteCount(
            placeholder: ("New notification", "Open the app to view it."), coding: .aesgcm)
        #expect(
            documented == 2_959, "webpush-v1.md states the frame's limit for its example placeholder: \(documented)")
    }
}
