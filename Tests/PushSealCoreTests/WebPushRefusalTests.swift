import PushSealPrimitives
import Testing

@testable import PushSealCore

/// Every refusal of webpush-v1.md's opening rules, each with the reason it names, and none with
/// any plaintext.
@Suite("Web Push refusals")
struct WebPushRefusalTests {
    let receiver: WebPushReceiver
    let subscription: WebPushSubscription

    init() throws {
        receiver = try WebPushReceiver.generate()
        subscription = try receiver.subscription(endpoint: "https://push.example.net/p/1")
    }

    /// A message whose record plaintext is exactly `record`, sealed correctly otherwise: what a
    /// sender with a broken padding routine would send.
    func message(record: [UInt8], recordSize: UInt32 = 4096) throws -> [UInt8] {
        let sender = try P256.PrivateKey()
        let salt = SecureRandom.bytes(16)
        let header = ContentCodingHeader(salt: salt, recordSize: recordSize, senderKey: sender.publicKey)
        let schedule = try WebPushKeySchedule(
            .aes128gcm,
            ecdhSecret: try sender.sharedSecret(with: receiver.privateKey.publicKey), authSecret: receiver.authSecret,
            receiverKey: receiver.privateKey.publicKey, senderKey: sender.publicKey, salt: salt)
        return header.bytes
            + (try AEAD.aes128GCM.seal(
                key: schedule.contentKey, nonce: schedule.nonce, aad: [UInt8](), plaintext: record))
    }

    func refusal(_ body: [UInt8]) -> WebPushError? {
        do {
            let content = try WebPushMessage.open(body, with: receiver)
            Issue.record("opened to \(content.count) bytes instead of refusing")
            return nil
        } catch {
            return error
        }
    }

    @Test("a well-formed record opens (the control for every refusal below)")
    func control() throws {
        #expect(
            try WebPushMessage.open(try message(record: Array("ok".utf8) + [2, 0, 0]), with: receiver)
                == Array("ok".utf8))
    }

    @Test("a body shorter than 21 bytes, or than its 86-byte header, is malformed-header")
    func shortHeader() throws {
        let body = try message(record: [0x41, 2])
        for count in [0, 1, 20, 21, 85] {
            #expect(refusal(Array(body.prefix(count)))?.reason == .malformedHeader, "\(count) bytes")
        }
    }

    @Test("a key id of any length but 65 is malformed-header", arguments: [0, 32, 64, 66, 255])
    func keyIDLength(length: Int) throws {
        var body = try message(record: [0x41, 2])
        body[20] = UInt8(length)
        let error = refusal(body)
        #expect(error?.reason == .malformedHeader)
        #expect(error?.detail.contains("\(length) bytes") == true)
    }

    @Test("a key id that is not a point on P-256 is invalid-sender-key")
    func senderKeyOffCurve() throws {
        var body = try message(record: [0x41, 2])
        body[21 + 64] ^= 0x01
        #expect(refusal(body)?.reason == .invalidSenderKey)
        body[21] = 0x02
        #expect(refusal(body)?.reason == .invalidSenderKey)
    }

    @Test("a record size below 18 is invalid-record-size", arguments: [0, 1, 17])
    func smallRecordSize(size: UInt32) throws {
        #expect(refusal(try message(record: [0x41, 2], recordSize: size))?.reason == .invalidRecordSize)
    }

    @Test("bytes past the record size are a second record: multiple-records; exactly rs bytes is one")
    func secondRecord() throws {
        let record = Array("twenty bytes of text".utf8) + [2]
        let sealedCount = record.count + 16
        #expect(refusal(try message(record: record, recordSize: UInt32(sealedCount - 1)))?.reason == .multipleRecords)
        let exact = try message(record: record, recordSize: UInt32(sealedCount))
        #expect(try WebPushMessage.open(exact, with: receiver) == Array(record.dropLast()))
    }

    @Test("a message longer than 4,096 bytes is message-too-large")
    func oversized() throws {
        let body = try message(record: [UInt8](repeating: 0x41, count: 3_994) + [2])
        #expect(body.count == 4_097)
        #expect(refusal(body)?.reason == .messageTooLarge)
    }

    @Test("a changed byte anywhere after the key id, a truncated tag, a wrong secret: decryption-failed")
    func tampering() throws {
        let body = try message(record: Array("secret text".utf8) + [2, 0, 0, 0])
        for index in [0, 5, 15, 86, 90, body.count - 1] {
            var changed = body
            changed[index] ^= 0x80
            #expect(refusal(changed)?.reason == .decryptionFailed, "byte \(index)")
        }
        #expect(refusal(Array(body.dropLast()))?.reason == .decryptionFailed)
        #expect(refusal(Array(body.prefix(86 + 15)))?.reason == .decryptionFailed)
        let stranger = try WebPushReceiver.generate()
        #expect(throws: WebPushError(.decryptionFailed, "")) { try WebPushMessage.open(body, with: stranger) }
        let otherSecret = try WebPushReceiver(
            privateKey: PrivateKey(kid: "k", suite: .p256, material: .pair(.p256(receiver.privateKey))),
            authSecret: [UInt8](repeating: 7, count: 16))
        #expect(throws: WebPushError(.decryptionFailed, "")) { try WebPushMessage.open(body, with: otherSecret) }
    }

    @Test("a record with no 0x02 anywhere, or of zeros only, or empty, is missing-delimiter")
    func missingDelimiter() throws {
        #expect(refusal(try message(record: Array("hello".utf8)))?.reason == .missingDelimiter)
        #expect(refusal(try message(record: [0, 0, 0, 0]))?.reason == .missingDelimiter)
        #expect(refusal(try message(record: []))?.reason == .missingDelimiter)
    }

    @Test("a last record ending with the 0x01 delimiter is misplaced-delimiter")
    func misplacedDelimiter() throws {
        #expect(refusal(try message(record: Array("hello".utf8) + [1]))?.reason == .misplacedDelimiter)
        #expect(refusal(try message(record: Array("hello".utf8) + [1, 0, 0]))?.reason == .misplacedDelimiter)
    }

    @Test("non-zero bytes after the 0x02 delimiter are nonzero-padding")
    func nonZeroPadding() throws {
        let error = refusal(try message(record: Array("hello".utf8) + [2, 0, 5, 0]))
        #expect(error?.reason == .nonZeroPadding)
        #expect(error?.detail.contains("byte 7") == true)
    }

    @Test("no refusal's text holds the content")
    func noPlaintextInErrors() throws {
        let bodies = [
            try message(record: Array("hello-secret".utf8) + [2, 0, 5]),
            try message(record: Array("hello-secret".utf8) + [1]),
            try message(record: Array("hello-secret".utf8)),
        ]
        for body in bodies {
            #expect(refusal(body).map { "\($0)".contains("hello") } == false)
        }
    }
}
