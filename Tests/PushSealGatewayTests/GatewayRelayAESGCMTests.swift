import Foundation
import PushSealCore
import PushSealDecryptor
import PushSealDelivery
import PushSealPrimitives
import PushSealTestSupport
import Testing

@testable import PushSealGateway

/// The relay for the fediverse (docs/relay.md): a Mastodon server's legacy `aesgcm` posts, sent by
/// pywebpush (PyPI) as Mastodon's own library sends them, reach the phone through the relay,
/// inline and fetched, and open in `pushseal decrypt` and in the extension's session; every
/// malformed header is refused naming it; two servers' equal notification ids are both shown.
@Suite("pushseal-gateway relay: legacy aesgcm", .serialized)
struct GatewayRelayAESGCMTests {
    /// A Mastodon notification whose JSON is exactly `count` bytes long, its body filled with "a".
    static func mastodon(count: Int, id: Int = 4207) -> (json: String, body: String) {
        let head =
            #"{"access_token":"oauth-9f2c41d7","preferred_locale":"en","notification_id":\#(id),"#
            + #""notification_type":"mention","icon":"https://files.example/a.png","title":"Ada mentioned you","body":""#
        let body = String(repeating: "a", count: count - head.utf8.count - 2)
        return (head + body + #""}"#, body)
    }

    /// What the extension's session shows for `payload` with the phone's store, fetching what it
    /// refers to from the HTTPS front whose certificate is `caFile`.
    static func extensionShows(_ payload: JSONObject, store directory: String, caFile: String) throws
        -> DecryptionResult
    {
        let store = FileKeyStore(directory: directory)
        let fetcher = ContentFetcher(caFile: caFile, allowsLocalDestinations: true)
        let delivered = Protected<DecryptionResult?>(nil)
        let done = DispatchSemaphore(value: 0)
        let session = ExtensionSession(
            payload: payload, decryptor: Decryptor(keyStore: store, ledger: store.ledger, fetcher: fetcher)
        ) {
            result in
            delivered.withLock { $0 = result }
            done.signal()
        }
        session.didReceive()
        #expect(done.wait(timeout: .now() + 30) == .success)
        return try #require(delivered.withLock { $0 })
    }

    @Test(
        "Mastodon's path: aesgcm from pywebpush with VAPID in either form reaches the phone inline and fetched, up to a full body",
        arguments: GatewayBackend.allCases)
    func mastodonPath(_ backend: GatewayBackend) throws {
        let fronted = try GatewayFetchTests.FrontedRelay(backend)
        let relay = fronted.relay
        let keyFile = try MockAPNs.makeAuthKey(relay.world.directory.file("mastodon-vapid.pem"))
        var pem = Array(try Data(contentsOf: URL(fileURLWithPath: keyFile)))
        let serverKey = try VAPIDKey(wipingFileBytes: &pem).publicKey
        let endpoint = try relay.endpoint(vapidKey: serverKey)
        let inlineLimit =
            ForwardedWebPush.maximumMessageByteCount(
                placeholder: ("New notification", "Open the app to view it."), coding: .aesgcm) - 86 - 16 - 2
        // (content length, coding, VAPID form): short, at the inline edge, one past it, and the
        // largest a 4,096-byte body holds; then the other coding and the other VAPID form.
        let cases: [(Int, String, String)] = [
            (300, "aesgcm", "draft"), (inlineLimit, "aesgcm", "draft"), (inlineLimit + 1, "aesgcm", "draft"),
            (4_078, "aesgcm", "draft"), (300, "aesgcm", "rfc8292"), (300, "aes128gcm", "draft"),
            (3_993, "aes128gcm", "draft"),
        ]
        for (index, (count, coding, form)) in cases.enumerated() {
            let (json, text) = Self.mastodon(count: count, id: index + 1)
            let sent = try relay.send(
                json, to: endpoint.local, headers: ["Urgency": "normal"], vapidKey: keyFile, aud: relay.publicURL,
                coding: coding, vapidForm: form)
            #expect(sent.status == 201, "\(count) bytes, \(coding), \(form): \(sent.error ?? "")")
            #expect(relay.world.eventually { relay.forwarded().count == index + 1 })
            let request = try #require(relay.forwarded().last)
            #expect(request["status"] as? Int == 200, "APNs (the mock) takes it: \(request["reason"] ?? "")")
            let body = try #require(request["body"] as? String)
            #expect(body.utf8.count <= 4_096)
            #expect(!body.contains("Ada") && !body.contains("oauth-9f2c41d7"), "ciphertext only")
            let payload = try #require(try JSONParser.parse(Array(body.utf8)).objectValue)
            let inline = coding == "aesgcm" ? count <= inlineLimit : count + 86 + 17 <= 2_964
            let member = coding == "aesgcm" ? "webpush_aesgcm" : "webpush"
            #expect(
                (payload[member] != nil) == inline && (payload["enc"] != nil) == !inline,
                "\(count) bytes, \(coding): \(payload.members.map(\.name))")
            #expect(payload.members.count == 3, "nothing of the headers in clear: \(payload.members.map(\.name))")
            let opened = try fronted.open(body)
            #expect(opened["status"] == .string("decrypted"), "\(count) bytes, \(coding): \(opened)")
            #expect(opened["fetched"] == (inline ? nil : .bool(true)), "\(opened["fetched"] ?? .null)")
            let shown = try #require(opened["notification"]?.objectValue)
            #expect(shown["title"] == .string("Ada mentioned you") && shown["body"] == .string(text))
            #expect(!JSONWriter.string(.object(opened)).contains("oauth-9f2c41d7"), "no access_token shown or printed")
            let session = try Self.extensionShows(
                payload, store: relay.world.directory.file("store-phone"), caFile: fronted.front.certificate)
            #expect(session.status == .decrypted && session.notification.body == text, "the extension's session")
            #expect(session.fetched == !inline && !session.duplicate, "the CLI recorded nothing without --record")
        }
        let received = relay.world.logged("webpush-received")
        #expect(received.map(\.["coding"]) == cases.map { .string($0.1) }, "\(received)")
        #expect(!relay.world.logText.contains("oauth-9f2c41d7"))
    }

    @Test("every malformed aesgcm header is refused with 400 naming it, and nothing is stored")
    func malformedHeaders() throws {
        let relay = try GatewayRelayTests.Relay()
        let endpoint = try relay.endpoint()
        let subscription = try WebPushSubscription(
            endpoint: "https://relay.example/x", p256dh: relay.keys["p256dh"]?.stringValue ?? "",
            auth: relay.keys["auth"]?.stringValue ?? "")
        let message = try AESGCMMessage.seal(Array(#"{"title":"t","body":"b"}"#.utf8), for: subscription)
        let salt = Base64URL.encode(message.salt)
        let key = Base64URL.encode(Array(message.frame[21..<86]))
        var offCurve = Array(message.frame[21..<86])
        offCurve[64] ^= 1
        let valid = [
            "Content-Encoding": "aesgcm", "TTL": "60", "Encryption": "salt=\(salt)", "Crypto-Key": "dh=\(key)",
        ]
        func with(_ changes: [String: String?]) -> [String: String] {
            var headers = valid
            for (name, value) in changes { headers[name] = value }
            return headers
        }
        let cases: [([String: String?], [UInt8], String)] = [
            (["Encryption": nil], message.record, "Encryption is missing"),
            (["Encryption": "rs=4096"], message.record, "Encryption's salt"),
            (["Encryption": "salt=\(salt.dropLast(2))"], message.record, "Encryption's salt"),
            (["Encryption": "salt=\(salt)+/"], message.record, "Encryption's salt"),
            (["Encryption": "salt=\(salt), salt=\(salt)"], message.record, "Encryption holds 2 entries"),
            (["Encryption": "salt=\(salt);salt=\(salt)"], message.record, "Encryption is not a list"),
            (["Encryption": "salt=\(salt);rs=abc"], message.record, "Encryption's rs"),
            (["Encryption": "salt=\(salt);rs=2"], message.record, "Encryption's rs"),
            (["Encryption": "salt=\(salt);rs=20"], message.record, "one aesgcm record"),
            (["Crypto-Key": nil], message.record, "Crypto-Key is missing"),
            (["Crypto-Key": "p256ecdsa=\(key)"], message.record, "exactly one dh"),
            (["Crypto-Key": "dh=\(key),dh=\(key)"], message.record, "exactly one dh"),
            (["Crypto-Key": "dh=\(Base64URL.encode(offCurve))"], message.record, "Crypto-Key's dh"),
            (["Crypto-Key": "dh=\(key.dropLast(4))"], message.record, "Crypto-Key's dh"),
            ([:], Array(message.record.prefix(17)), "one aesgcm record"),
            (["Content-Encoding": "gzip"], message.record, "not aes128gcm or aesgcm"),
        ]
        for (changes, body, expected) in cases {
            let answer = try relay.post(body, to: endpoint.local, headers: with(changes))
            #expect(answer.0 == 400 && answer.1.contains(expected), "\(changes): \(answer)")
        }
        #expect(relay.world.logged("webpush-received").isEmpty, "nothing was accepted")
        let metrics = String(decoding: try relay.world.request("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"pushseal_gateway_webpush_received_total{status="400"} \#(cases.count)"#))
        // The spellings senders use: quoted values, padded base64url, the draft's comma, a keyid.
        for (encryption, cryptoKey) in [
            (#"salt="\#(salt)""#, #"dh="\#(key)""#), ("salt=\(salt)==", "dh=\(key)=;p256ecdsa=BAAA"),
            ("keyid=p256dh;salt=\(salt);rs=4096", "keyid=p256dh;dh=\(key), p256ecdsa=BAAA"),
        ] {
            let answer = try relay.post(
                message.record, to: endpoint.local, headers: with(["Encryption": encryption, "Crypto-Key": cryptoKey]))
            #expect(answer.0 == 201, "\(encryption) / \(cryptoKey): \(answer)")
        }
        #expect(relay.world.eventually { relay.forwarded().count == 3 })
        for request in relay.forwarded() {
            let opened = try relay.decrypt(try #require(request["body"] as? String))
            #expect(opened["notification"]?.objectValue?["body"] == .string("b"), "\(opened)")
        }
    }

    @Test("two Mastodon servers number their notifications from 1: both are shown, and each server's repeat once")
    func twoServersEqualIDs() throws {
        let relay = try GatewayRelayTests.Relay()
        let first = try relay.endpoint()
        let second = try relay.endpoint()
        for (endpoint, title) in [(first, "first"), (second, "second"), (first, "first")] {
            let json =
                #"{"access_token":"t","notification_id":1,"notification_type":"mention","title":"\#(title)","body":"b"}"#
            #expect(try relay.send(json, to: endpoint.local, coding: "aesgcm").status == 201)
        }
        #expect(relay.world.eventually { relay.forwarded().count == 3 })
        let opened = try relay.forwarded().map {
            try relay.decrypt(try #require($0["body"] as? String), options: ["--record"])
        }
        #expect(
            opened.map { $0["notification"]?.objectValue?["title"] } == [
                .string("first"), .string("second"), .string("first"),
            ])
        #expect(opened.map { $0["duplicate"] } == [.bool(false), .bool(false), .bool(true)], "\(opened)")
    }
}
