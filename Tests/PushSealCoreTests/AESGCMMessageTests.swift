import Foundation
import PushSealPrimitives
import PushSealTestSupport
import Testing

@testable import PushSealCore

/// The legacy `aesgcm` coding of draft-ietf-webpush-encryption-04: the draft's own example byte
/// for byte, round trips at every size a 4,096-byte body allows, the frame a relay forwards, and
/// every refusal with its reason.
@Suite("Legacy aesgcm messages (draft-ietf-webpush-encryption-04)")
struct AESGCMMessageTests {
    /// The draft's example (§5) and intermediate values (Appendix A), in base64url as the draft
    /// prints them. No package of Debian's or PyPI's ships them (webpush-v1.md, "Proof"); http_ece
    /// computes the same record from the same inputs (`WebPushInteropTests`).
    enum DraftExample {
        static let plaintext = "I am the walrus"
        static let senderPrivateKey = "nCScek-QpEjmOOlT-rQ38nZzvdPlqa00Zy0i6m2OJvY"
        static let senderPublicKey =
            "BNoRDbb84JGm8g5Z5CFxurSqsXWJ11ItfXEWYVLE85Y7CYkDjXsIEc4aqxYaQ1G8BqkXCJ6DPpDrWtdWj_mugHU"
        static let receiverPrivateKey = "9FWl15_QUQAWDaD3k3l50ZBZQJ4au27F1V4F0uLSD_M"
        static let receiverPublicKey =
            "BCEkBjzL8Z3C-oi2Q7oE5t2Np-p7osjGLg93qUP0wvqRT21EEWyf0cQDQcakQMqz4hQKYOQ3il2nNZct4HgAUQU"
        static let authSecret = "R29vIGdvbyBnJyBqb29iIQ"
        static let salt = "lngarbyKfMoi9Z75xYXmkg"
        static let contentKey = "AN2-xhvFWeYh5z0fcDu0Ww"
        static let nonce = "JY1Okw5rw1Drkg9J"
        static let record = "6nqAQUME8hNqw5J3kl8cpVVJylXKYqZOeseZG8UueKpA"
        /// The frame a relay forwards for the example (webpush-v1.md states it).
        static let frame =
            "lngarbyKfMoi9Z75xYXmkgAAEABBBNoRDbb84JGm8g5Z5CFxurSqsXWJ11ItfXEWYVLE85Y7CYkDjXsIEc4aqxYaQ1G8BqkXCJ6DPpDrWtdWj_mugHXqeoBBQwTyE2rDkneSXxylVUnKVcpipk56x5kbxS54qkA"

        static func key(_ scalar: String) throws -> PrivateKey {
            let d = try #require(Base64URL.decode(scalar))
            let pair = try P256.PrivateKey(rawRepresentation: SecretBytes(copying: d))
            return PrivateKey(kid: "draft-04", suite: .p256, material: .pair(.p256(pair)))
        }

        static func receiver() throws -> WebPushReceiver {
            try WebPushReceiver(
                privateKey: try key(receiverPrivateKey), authSecret: try #require(Base64URL.decode(authSecret)))
        }

        static func subscription() throws -> WebPushSubscription {
            try WebPushSubscription(
                endpoint: "https://push.example.net/push/JzLQ3raZJfFBR0aqvOMsLrt54w4rJUsV", p256dh: receiverPublicKey,
                auth: authSecret)
        }
    }

    @Test("draft-04's example: its key and nonce, and its record byte for byte from its salt and sender key")
    func draftExampleSeals() throws {
        let sender = try DraftExample.key(DraftExample.senderPrivateKey)
        let senderKey = try #require(sender.publicKey?.rawRepresentation)
        #expect(senderKey == Base64URL.decode(DraftExample.senderPublicKey))
        let receiver = try DraftExample.receiver()
        let salt = try #require(Base64URL.decode(DraftExample.salt))
        let schedule = try WebPushKeySchedule(
            .aesgcm,
            ecdhSecret: try receiver.privateKey.sharedSecret(with: try P256.PublicKey(x963Representation: senderKey)),
            authSecret: receiver.authSecret, receiverKey: receiver.privateKey.publicKey,
            senderKey: try P256.PublicKey(x963Representation: senderKey), salt: salt)
        #expect(schedule.contentKey.withUnsafeBytes { Base64URL.encode(Array($0)) } == DraftExample.contentKey)
        #expect(Base64URL.encode(schedule.nonce) == DraftExample.nonce)
        let message = try AESGCMMessage.seal(
            Array(DraftExample.plaintext.utf8), for: try DraftExample.subscription(), sender: sender, salt: salt)
        #expect(Base64URL.encode(message.record) == DraftExample.record)
        #expect(Base64URL.encode(message.frame) == DraftExample.frame)
    }

    @Test("draft-04's example opens from its headers' values, and from its frame as webpush-v1.md states it")
    func draftExampleOpens() throws {
        let message = try AESGCMMessage(
            salt: try #require(Base64URL.decode(DraftExample.salt)), recordSize: 4096,
            senderKey: try #require(Base64URL.decode(DraftExample.senderPublicKey)),
            record: try #require(Base64URL.decode(DraftExample.record)))
        let receiver = try DraftExample.receiver()
        #expect(String(decoding: try message.open(with: receiver), as: UTF8.self) == DraftExample.plaintext)
        #expect(Base64URL.encode(message.frame) == DraftExample.frame)
        let (content, identity) = try WebPushCoding.aesgcm.open(
            try #require(Base64URL.decode(DraftExample.frame)), with: receiver)
        #expect(String(decoding: content, as: UTF8.self) == DraftExample.plaintext)
        // The identity is the one an aes128gcm message with this salt and key would have.
        let salt = try #require(Base64URL.decode(DraftExample.salt))
        let key = try #require(Base64URL.decode(DraftExample.senderPublicKey))
        #expect(identity == Base64URL.encode(SHA256.hash(salt + key)))
        let contract = try String(
            contentsOf: TestVectors.packageRoot.appendingPathComponent("docs/webpush-v1.md"), encoding: .utf8)
        #expect(contract.contains(DraftExample.frame), "the contract states the frame")
    }

    @Test("the frame is RFC 8188's header layout with the draft's values, then the record as posted")
    func frameLayout() throws {
        let message = try AESGCMMessage.seal(
            Array("layout".utf8), for: try DraftExample.subscription(), padding: 5, recordSize: 300)
        let frame = message.frame
        #expect(Array(frame[0..<16]) == message.salt)
        #expect(Array(frame[16..<20]) == [0, 0, 0x01, 0x2C], "rs 300, big-endian")
        #expect(frame[20] == 65)
        #expect(Array(frame[86...]) == message.record)
        #expect(try AESGCMMessage(frame: frame).record == message.record)
    }

    @Test("content of every length a 4,096-byte body holds, with padding, comes back unchanged")
    func roundTrips() throws {
        let receiver = try WebPushReceiver.generate()
        let subscription = try receiver.subscription(endpoint: "https://push.example.net/push/x")
        for (count, padding) in [(0, 0), (1, 0), (15, 3), (500, 100), (4_078, 0), (4_000, 78), (3_000, 1_078)] {
            let content = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            let message = try AESGCMMessage.seal(content, for: subscription, padding: padding)
            #expect(message.record.count == 2 + padding + count + 16)
            #expect(try message.open(with: receiver) == content, "\(count) bytes, \(padding) of padding")
        }
        #expect(throws: WebPushError(.messageTooLarge, "")) {
            try AESGCMMessage.seal([UInt8](repeating: 1, count: 4_079), for: subscription)
        }
        let other = try WebPushReceiver.generate()
        let message = try AESGCMMessage.seal(Array("hi".utf8), for: subscription)
        #expect(throws: WebPushError(.decryptionFailed, "")) { try message.open(with: other) }
    }

    @Test("the padding-length rule: the length must fit, the padding must be zeros, the content follows it")
    func paddingRule() throws {
        #expect(try AESGCMMessage.contentStart([0, 0]) == 2)
        #expect(try AESGCMMessage.contentStart([0, 2, 0, 0, 0x41]) == 4)
        #expect(try AESGCMMessage.contentStart([0, 3, 0, 0, 0]) == 5)
        #expect(throws: WebPushError(.paddingTooLong, "")) { try AESGCMMessage.contentStart([0, 4, 0, 0, 0]) }
        #expect(throws: WebPushError(.paddingTooLong, "")) { try AESGCMMessage.contentStart([0]) }
        #expect(throws: WebPushError(.paddingTooLong, "")) { try AESGCMMessage.contentStart([0x01, 0x00, 0]) }
        #expect(throws: WebPushError(.nonZeroPadding, "")) { try AESGCMMessage.contentStart([0, 2, 0, 1, 0x41]) }
    }

    @Test("what a message refuses: salt, record size, sender key, more than one record, a record too short")
    func refusals() throws {
        let salt = [UInt8](repeating: 7, count: 16)
        let key = try #require(Base64URL.decode(DraftExample.senderPublicKey))
        let record = [UInt8](repeating: 1, count: 40)
        func refused(_ reason: WebPushError.Reason, _ build: () throws(WebPushError) -> AESGCMMessage) {
            #expect(throws: WebPushError(reason, "")) { try build() }
        }
        refused(.malformedHeader) { () throws(WebPushError) in
            try AESGCMMessage(salt: Array(salt.prefix(15)), recordSize: 4096, senderKey: key, record: record)
        }
        refused(.invalidRecordSize) { () throws(WebPushError) in
            try AESGCMMessage(salt: salt, recordSize: 2, senderKey: key, record: record)
        }
        var offCurve = key
        offCurve[64] ^= 1
        refused(.invalidSenderKey) { () throws(WebPushError) in
            try AESGCMMessage(salt: salt, recordSize: 4096, senderKey: offCurve, record: record)
        }
        // A record as long as rs + 16 is a full one, which a second must follow.
        refused(.multipleRecords) { () throws(WebPushError) in
            try AESGCMMessage(salt: salt, recordSize: 24, senderKey: key, record: record)
        }
        #expect(try AESGCMMessage(salt: salt, recordSize: 25, senderKey: key, record: record).record == record)
        refused(.decryptionFailed) { () throws(WebPushError) in
            try AESGCMMessage(salt: salt, recordSize: 4096, senderKey: key, record: Array(record.prefix(17)))
        }
        let frame = try AESGCMMessage(salt: salt, recordSize: 4096, senderKey: key, record: record).frame
        refused(.messageTooLarge) { () throws(WebPushError) in
            try AESGCMMessage(frame: frame + [UInt8](repeating: 0, count: 4_200))
        }
        refused(.malformedHeader) { () throws(WebPushError) in try AESGCMMessage(frame: frame.prefix(60)) }
    }
}
