internal import PushSealPrimitives

/// The header of an `aes128gcm` body (RFC 8188 §2.1) as RFC 8291 fills it:
/// `salt (16) || rs (4, big-endian) || idlen (1) || keyid (idlen)`, where the key id is the
/// sender's ephemeral P-256 public key, so `idlen` is 65 and the header 86 bytes long.
struct ContentCodingHeader {
    /// The length of the salt.
    static let saltByteCount = 16
    /// The length of the header before the key id.
    static let fixedByteCount = saltByteCount + 4 + 1
    /// The whole header's length for Web Push.
    static let byteCount = fixedByteCount + P256.pointByteCount
    /// The smallest record size RFC 8188 allows: a 16-byte tag, a delimiter and one byte more.
    static let minimumRecordSize: UInt32 = 18

    /// The HKDF salt of the content encryption key and nonce.
    let salt: [UInt8]
    /// The record size, `rs`.
    let recordSize: UInt32
    /// The sender's ephemeral public key (`as_public`), validated on the curve.
    let senderKey: P256.PublicKey

    init(salt: [UInt8], recordSize: UInt32, senderKey: P256.PublicKey) {
        self.salt = salt
        self.recordSize = recordSize
        self.senderKey = senderKey
    }

    /// Reads the header at the start of `body`, whose record size must be at least
    /// `minimumRecordSize` (RFC 8188's 18 unless given: a legacy `aesgcm` record's size counts no
    /// tag, so 3 holds its padding length and a byte).
    /// - Throws: ``WebPushError/Reason/malformedHeader``, ``WebPushError/Reason/invalidRecordSize``
    ///   or ``WebPushError/Reason/invalidSenderKey``.
    init(parsing body: ArraySlice<UInt8>, minimumRecordSize: UInt32 = minimumRecordSize) throws(WebPushError) {
        guard body.count >= Self.fixedByteCount else {
            throw WebPushError(
                .malformedHeader, "the body holds \(body.count) bytes; an aes128gcm header has at least 21")
        }
        let start = body.startIndex
        let salt = Array(body[start..<start + Self.saltByteCount])
        let recordSize = body[(start + 16)..<(start + 20)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let keyIDCount = Int(body[start + 20])
        guard keyIDCount == P256.pointByteCount else {
            throw WebPushError(
                .malformedHeader,
                "the header's key id is \(keyIDCount) bytes long; RFC 8291 puts the sender's 65-byte P-256 point there")
        }
        guard body.count >= Self.byteCount else {
            throw WebPushError(
                .malformedHeader, "the body holds \(body.count) bytes, less than its 86-byte header")
        }
        guard recordSize >= minimumRecordSize else {
            throw WebPushError(
                .invalidRecordSize, "the record size is \(recordSize); the coding allows \(minimumRecordSize) or more")
        }
        let keyID = Array(body[(start + Self.fixedByteCount)..<(start + Self.byteCount)])
        do {
            senderKey = try P256.PublicKey(x963Representation: keyID)
        } catch {
            throw WebPushError(.invalidSenderKey, "the header's key id is not an uncompressed P-256 point on the curve")
        }
        self.salt = salt
        self.recordSize = recordSize
    }

    /// The header's bytes.
    var bytes: [UInt8] {
        var bytes = salt
        bytes.reserveCapacity(Self.byteCount)
        bytes.append(contentsOf: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: recordSize >> UInt32($0)) })
        bytes.append(UInt8(P256.pointByteCount))
        bytes.append(contentsOf: senderKey.x963Representation)
        return bytes
    }
}
