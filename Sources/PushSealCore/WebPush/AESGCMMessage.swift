internal import PushSealPrimitives
internal import PushSealURL

/// A message in the legacy `aesgcm` coding of draft-ietf-webpush-encryption-04, as Mastodon
/// and other senders still post it (webpush-v1.md, "Legacy `aesgcm`"): one record sealed to a
/// subscription's key and authentication secret, whose salt travels in an `Encryption` header and
/// whose sender key in a `Crypto-Key` header rather than in the body.
///
/// APNs carries no HTTP headers, so a relay forwards the message as its **frame**: RFC 8188's
/// header layout filled with the draft's values, then the record, byte for byte as posted:
///
/// ```
/// salt (16, Encryption's salt) || rs (4, big-endian; Encryption's rs, else 4096)
///   || 0x41 || the sender's key (65, Crypto-Key's dh) || the record (as posted)
/// ```
///
/// The record's plaintext is `padding length (2, big-endian) || that many zeros || content`,
/// and it is shorter than `rs` (one record, the last): at most `rs + 15` bytes with its tag.
public struct AESGCMMessage: Sendable {
    /// The HKDF salt, from the `Encryption` header's `salt`.
    public let salt: [UInt8]
    /// The record size, from the `Encryption` header's `rs` (4096 when absent).
    public let recordSize: UInt32
    /// The sender's ephemeral public key, from the `Crypto-Key` header's `dh`.
    let senderKey: P256.PublicKey
    /// The record, as posted.
    public let record: [UInt8]

    /// The record size a sender means when `Encryption` names none.
    public static let defaultRecordSize: UInt32 = 4096
    /// The smallest record size: the two-byte padding length and one byte of content.
    public static let minimumRecordSize: UInt32 = 3
    /// The length of the padding length at the head of the record's plaintext.
    static let paddingLengthByteCount = 2
    /// The largest frame: RFC 8030 §7.2's 4,096-byte body after its 86-byte header.
    public static let maximumFrameByteCount = ContentCodingHeader.byteCount + WebPushMessage.maximumByteCount

    /// A message from what a sender posted: the salt and record size of its `Encryption` header,
    /// the uncompressed point of its `Crypto-Key` header's `dh`, and its body.
    /// - Throws: ``WebPushError``: `malformed-header` for a salt that is not 16 bytes,
    ///   `invalid-record-size` for a record size below 3, `invalid-sender-key` for a key that is
    ///   not a point on P-256, `multiple-records` for a body that does not fit one record under
    ///   the record size, `decryption-failed` for one too short to hold a tag and a padding length.
    public init(salt: [UInt8], recordSize: UInt32, senderKey: [UInt8], record: [UInt8]) throws(WebPushError) {
        guard salt.count == ContentCodingHeader.saltByteCount else {
            throw WebPushError(.malformedHeader, "the salt holds \(salt.count) bytes, not 16")
        }
        guard recordSize >= Self.minimumRecordSize else {
            throw WebPushError(.invalidRecordSize, "the record size is \(recordSize); aesgcm allows 3 or more")
        }
        let key: P256.PublicKey
        do {
            key = try P256.PublicKey(x963Representation: senderKey)
        } catch {
            throw WebPushError(.invalidSenderKey, "the sender's key is not an uncompressed P-256 point on the curve")
        }
        try self.init(salt: salt, recordSize: recordSize, senderKey: key, record: record)
    }

    private init(salt: [UInt8], recordSize: UInt32, senderKey: P256.PublicKey, record: [UInt8]) throws(WebPushError) {
        // The last record's plaintext is shorter than rs (draft-ietf-httpbis-encryption-encoding-03
        // §2): a body of rs + 16 bytes or more holds a second record, or was cut at a boundary.
        guard record.count < Int(recordSize) + WebPushMessage.tagByteCount else {
            throw WebPushError(
                .multipleRecords,
                "the body holds \(record.count) bytes, more than one record of \(recordSize) bytes "
                    + "and its tag: a Web Push message is one record")
        }
        guard record.count >= WebPushMessage.tagByteCount + Self.paddingLengthByteCount else {
            throw WebPushError(
                .decryptionFailed,
                "the body holds \(record.count) bytes; an aesgcm record holds at least its 16-byte tag and a padding length"
            )
        }
        self.salt = salt
        self.recordSize = recordSize
        self.senderKey = senderKey
        self.record = record
    }

    /// A message from its frame (the layout above), as a relay forwards it.
    /// - Throws: ``WebPushError``: `message-too-large` for a frame over
    ///   ``maximumFrameByteCount``, `malformed-header`, `invalid-record-size` or
    ///   `invalid-sender-key` for its header, and the record's refusals of
    ///   ``init(salt:recordSize:senderKey:record:)``.
    public init(frame: some Collection<UInt8>) throws(WebPushError) {
        guard frame.count <= Self.maximumFrameByteCount else {
            throw WebPushError(
                .messageTooLarge,
                "the frame holds \(frame.count) bytes; an aesgcm message's frame holds at most \(Self.maximumFrameByteCount)"
            )
        }
        let bytes = Array(frame)
        let header = try ContentCodingHeader(parsing: bytes[...], minimumRecordSize: Self.minimumRecordSize)
        try self.init(
            salt: header.salt, recordSize: header.recordSize, senderKey: header.senderKey,
            record: Array(bytes[ContentCodingHeader.byteCount...]))
    }

    /// The frame: what a relay forwards.
    public var frame: [UInt8] {
        ContentCodingHeader(salt: salt, recordSize: recordSize, senderKey: senderKey).bytes + record
    }

    /// The message's identity among those a receiver opened (webpush-v1.md, "Replays"): as an
    /// `aes128gcm` message's, SHA-256 over the salt and the sender's key.
    public var replayIdentity: String { WebPushMessage.replayIdentity(salt: salt, senderKey: senderKey) }

    /// Opens the message with `receiver`: derives the key (draft-04's schedule), authenticates
    /// and decrypts the record, and removes its padding. Nothing is returned unless every check
    /// passes.
    /// - Throws: ``WebPushError`` with `decryption-failed`, `padding-too-long` or
    ///   `nonzero-padding`.
    public func open(with receiver: WebPushReceiver) throws(WebPushError) -> [UInt8] {
        var plaintext = try WebPushKeySchedule.openRecord(
            record, .aesgcm, with: receiver, senderKey: senderKey, salt: salt)
        do {
            let start = try Self.contentStart(plaintext)
            plaintext.removeSubrange(..<start)
            return plaintext
        } catch {
            wipe(&plaintext)
            throw error
        }
    }

    /// Where the content starts in a decrypted record: after the two-byte padding length and that
    /// many bytes of padding, every one zero (also the fuzz target's entry point).
    package static func contentStart(_ plaintext: [UInt8]) throws(WebPushError) -> Int {
        guard plaintext.count >= paddingLengthByteCount else {
            throw WebPushError(.paddingTooLong, "the record holds \(plaintext.count) bytes, no two-byte padding length")
        }
        let length = Int(plaintext[0]) << 8 | Int(plaintext[1])
        let available = plaintext.count - paddingLengthByteCount
        guard length <= available else {
            throw WebPushError(
                .paddingTooLong, "the padding length is \(length), more than the \(available) bytes after it")
        }
        let end = paddingLengthByteCount + length
        if let nonZero = plaintext[paddingLengthByteCount..<end].firstIndex(where: { $0 != 0 }) {
            throw WebPushError(
                .nonZeroPadding, "byte \(nonZero) of the record, inside its \(length) bytes of padding, is not zero")
        }
        return end
    }

    /// Seals `content` for `subscription` with `padding` zero bytes, under `sender` and `salt`
    /// when given (known-answer and interoperability tests, and the fuzz target; PushSeal sends
    /// `aes128gcm` alone).
    /// - Throws: ``WebPushError`` with `message-too-large` when the record would not fit one
    ///   record of `recordSize` or a 4,096-byte body, `crypto-failure` when the backend fails.
    package static func seal(
        _ content: some Collection<UInt8>, for subscription: WebPushSubscription, padding: Int = 0,
        recordSize: UInt32 = defaultRecordSize, sender: PrivateKey? = nil, salt: [UInt8]? = nil
    ) throws(WebPushError) -> AESGCMMessage {
        let plaintextCount = paddingLengthByteCount + padding + content.count
        guard padding >= 0, padding <= Int(UInt16.max), plaintextCount < Int(recordSize),
            plaintextCount + WebPushMessage.tagByteCount <= WebPushMessage.maximumByteCount
        else {
            throw WebPushError(
                .messageTooLarge,
                "\(content.count) bytes with \(padding) of padding do not fit one record of \(recordSize) bytes "
                    + "within \(WebPushMessage.maximumByteCount)")
        }
        var plaintext = [UInt8(truncatingIfNeeded: padding >> 8), UInt8(truncatingIfNeeded: padding)]
        plaintext.reserveCapacity(plaintextCount)
        plaintext.append(contentsOf: repeatElement(0, count: padding))
        plaintext.append(contentsOf: content)
        defer { wipe(&plaintext) }
        do {
            let senderPair: P256.PrivateKey
            if let sender {
                guard case .pair(.p256(let pair)) = sender.material else {
                    throw CryptoFailure.invalidKey("a Web Push sender key is a P-256 pair")
                }
                senderPair = pair
            } else {
                senderPair = try P256.PrivateKey()
            }
            let salt = salt ?? SecureRandom.bytes(ContentCodingHeader.saltByteCount)
            let schedule = try WebPushKeySchedule(
                .aesgcm,
                ecdhSecret: try senderPair.sharedSecret(with: subscription.receiverKey),
                authSecret: subscription.authSecret, receiverKey: subscription.receiverKey,
                senderKey: senderPair.publicKey, salt: salt)
            let record = try AEAD.aes128GCM.seal(
                key: schedule.contentKey, nonce: schedule.nonce, aad: [UInt8](), plaintext: plaintext)
            return try AESGCMMessage(
                salt: salt, recordSize: recordSize, senderKey: senderPair.publicKey, record: record)
        } catch let error as WebPushError {
            throw error
        } catch {
            throw WebPushError(.cryptoFailure, "sealing for \(subscription.endpointURL.authority) failed: \(error)")
        }
    }
}
