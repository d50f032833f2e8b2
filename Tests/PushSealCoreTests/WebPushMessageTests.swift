import Foundation
import PushSealPrimitives
import PushSealTestSupport
import Testing

@testable import PushSealCore

/// RFC 8291 messages: the RFC's own example byte for byte, and round trips at every size and
/// padding a 4,096-byte message allows.
@Suite("Web Push messages (RFC 8291)")
struct WebPushMessageTests {
    /// RFC 8291 Appendix A's inputs and result, in base64url as the RFC prints them. No package of
    /// Debian's or PyPI's ships them (webpush-v1.md, "Proof", says where they were looked for),
    /// and http_ece 1.2.1 computes the same body from the same inputs.
    enum AppendixA {
        static let plaintext = "When I grow up, I want to be a watermelon"
        static let senderPrivateKey = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
        static let senderPublicKey =
            "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
        static let receiverPrivateKey = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
        static let receiverPublicKey =
            "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
        static let authSecret = "BTBZMqHH6r4Tts7J_aSIgg"
        static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
        static let body =
            "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK"
            + "6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"

        static func key(_ scalar: String) throws -> PrivateKey {
            let d = try #require(Base64URL.decode(scalar))
            let pair = try P256.PrivateKey(rawRepresentation: SecretBytes(copying: d))
            return PrivateKey(kid: "appendix-a", suite: .p256, material: .pair(.p256(pair)))
        }

        static func receiver() throws -> WebPushReceiver {
            try WebPushReceiver(
                privateKey: try key(receiverPrivateKey), authSecret: try #require(Base64URL.decode(authSecret)))
        }
    }

    @Test("RFC 8291 Appendix A: the fixed salt and sender key give the RFC's body, byte for byte")
    func appendixASeals() throws {
        let subscription = try WebPushSubscription(
            endpoint: "https://push.example.net/push/JzLQ3raZJfFBR0aqvOMsLrt54w4rJUsV",
            p256dh: AppendixA.receiverPublicKey, auth: AppendixA.authSecret)
        let sender = try AppendixA.key(AppendixA.senderPrivateKey)
        #expect(sender.publicKey?.rawRepresentation == Base64URL.decode(AppendixA.senderPublicKey))
        let content = Array(AppendixA.plaintext.utf8)
        let salt = try #require(Base64URL.decode(AppendixA.salt))
        let body = try WebPushMessage.seal(
            content, for: subscription, recordPlaintextCount: content.count + 1, sender: sender, salt: salt)
        #expect(Base64URL.encode(body) == AppendixA.body)
    }

    @Test("RFC 8291 Appendix A's message has the replay identity webpush-v1.md gives for it, whatever its record size")
    func appendixAReplayIdentity() throws {
        // SHA-256 over the salt and the sender's key, as webpush-v1.md's "Replays" states it.
        let identity = "dpHL_VwsxN5bqpwLYGMCWxVl70To3T2j45dHRLbcjVE"
        let body = try #require(Base64URL.decode(AppendixA.body))
        #expect(try WebPushMessage.replayIdentity(body) == identity)
        var resized = body
        resized.replaceSubrange(16..<20, with: [0, 0, 0x10, 0x01])
        #expect(try WebPushMessage.replayIdentity(resized) == identity)
        let contract = try String(
            contentsOf: TestVectors.packageRoot.appendingPathComponent("docs/webpush-v1.md"), encoding: .utf8)
        #expect(contract.contains(identity), "the contract states the vector")
    }

    @Test("the padding webpush-v1.md states: the shortest content that gives a 4,096-byte message is 3,968 bytes")
    func fullMessageThreshold() throws {
        let subscription = try AppendixA.receiver().subscription(endpoint: "https://push.example.net/push/x")
        func length(_ count: Int) throws -> Int {
            try WebPushMessage.seal([UInt8](repeating: 0x78, count: count), for: subscription).count
        }
        let threshold = try #require(
            try (3_800...WebPushMessage.maximumContentByteCount).first {
                try length($0) == WebPushMessage.maximumByteCount
            })
        let below = try length(threshold - 1)
        #expect(threshold == 3_968 && below == 4_070)
        let contract = try String(
            contentsOf: TestVectors.packageRoot.appendingPathComponent("docs/webpush-v1.md"), encoding: .utf8)
        #expect(
            contract.contains(
                "contents of \(threshold.formatted(.number)) bytes and more all give a 4,096-byte message"),
            "webpush-v1.md, \"Padding\", states the threshold")
    }

    @Test("RFC 8291 Appendix A: the receiver opens the RFC's body to its plaintext")
    func appendixAOpens() throws {
        let receiver = try AppendixA.receiver()
        let subscription = try receiver.subscription(endpoint: "https://push.example.net/push/x")
        #expect(subscription.p256dh == AppendixA.receiverPublicKey)
        let content = try WebPushMessage.open(try #require(Base64URL.decode(AppendixA.body)), with: receiver)
        #expect(String(decoding: content, as: UTF8.self) == AppendixA.plaintext)
    }

    @Test(
        "content of every size class round-trips, padded to a 128-byte multiple within 4,096 bytes",
        arguments: [0, 1, 2, 41, 126, 127, 128, 1000, 3_865, 3_866, 3_992, 3_993])
    func roundTrip(size: Int) throws {
        let receiver = try WebPushReceiver.generate()
        let subscription = try receiver.subscription(endpoint: "https://push.example.net/p/1")
        let content = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let body = try WebPushMessage.seal(content, for: subscription)
        let record = body.count - ContentCodingHeader.byteCount - WebPushMessage.tagByteCount
        #expect(body.count <= WebPushMessage.maximumByteCount)
        #expect(record > size)
        #expect(record % WebPushMessage.defaultPaddingBlock == 0 || record == 3_994)
        #expect(record - size <= WebPushMessage.defaultPaddingBlock)
        #expect(try WebPushMessage.open(body, with: receiver) == content)
    }

    @Test("every record length from the content plus its delimiter to the 4,096-byte edge opens to the content")
    func everyPadding() throws {
        let receiver = try WebPushReceiver.generate()
        let subscription = try receiver.subscription(endpoint: "https://push.example.net/p/1")
        let content = Array("{\"title\":\"Dentist\",\"body\":\"Due now\"}".utf8)
        for length in (content.count + 1)...WebPushMessage.maximumRecordPlaintextByteCount {
            let body = try WebPushMessage.seal(
                content, for: subscription, recordPlaintextCount: length, sender: nil, salt: nil)
            #expect(body.count == ContentCodingHeader.byteCount + length + 16)
            let opened = try WebPushMessage.open(body, with: receiver)
            guard opened == content else {
                Issue.record("a record of \(length) bytes opened to \(opened.count) bytes")
                return
            }
        }
    }

    @Test("a padding block of 1 pads with the delimiter alone; content past 3,993 bytes is refused")
    func paddingBlockAndLimit() throws {
        let receiver = try WebPushReceiver.generate()
        let subscription = try receiver.subscription(endpoint: "https://push.example.net/p/1")
        let body = try WebPushMessage.seal(Array("hi".utf8), for: subscription, paddingBlock: 1)
        #expect(body.count == 86 + 3 + 16)
        let full = try WebPushMessage.seal([UInt8](repeating: 0x41, count: 3_993), for: subscription)
        #expect(full.count == 4_096)
        #expect(throws: WebPushError(.messageTooLarge, "")) {
            try WebPushMessage.seal([UInt8](repeating: 0x41, count: 3_994), for: subscription)
        }
    }

    @Test("two seals of the same content differ: a fresh salt and ephemeral key each time")
    func freshness() throws {
        let receiver = try WebPushReceiver.generate()
        let subscription = try receiver.subscription(endpoint: "https://push.example.net/p/1")
        let first = try WebPushMessage.seal(Array("same".utf8), for: subscription)
        let second = try WebPushMessage.seal(Array("same".utf8), for: subscription)
        #expect(first[..<16] != second[..<16])
        #expect(first[21..<86] != second[21..<86])
    }

    @Test("the receiver's JSON form reads back to a receiver that opens the same messages")
    func receiverJSON() throws {
        let receiver = try WebPushReceiver.generate()
        let subscription = try receiver.subscription(endpoint: "https://push.example.net/p/1")
        let body = try WebPushMessage.seal(Array("again".utf8), for: subscription)
        let reread = try WebPushReceiver(json: receiver.json)
        #expect(try WebPushMessage.open(body, with: reread) == Array("again".utf8))
        #expect("\(receiver)" == "WebPushReceiver(redacted)")
    }
}
