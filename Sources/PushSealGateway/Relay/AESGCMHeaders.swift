internal import PushSealCore
internal import PushSealPrimitives

/// What a legacy `aesgcm` post carries in its headers (draft-ietf-webpush-encryption-04 §3–5,
/// draft-ietf-httpbis-encryption-encoding-03 §3–4), read strictly: exactly one `Encryption` entry
/// with one `salt` (16 bytes of base64url) and at most one `rs` (from 3; 4096 when absent), and
/// exactly one `dh` across `Crypto-Key`'s entries (an uncompressed P-256 point in base64url).
/// Values may be quoted, and base64url padded with `=`; other parameters (`keyid`, and VAPID's
/// `p256ecdsa`) are left to whoever reads them.
struct AESGCMHeaders {
    /// The salt.
    let salt: [UInt8]
    /// The record size.
    let recordSize: UInt32
    /// The sender's ephemeral public key, as an uncompressed point.
    let senderKey: [UInt8]

    /// Reads the `Encryption` and `Crypto-Key` header values.
    /// - Throws: ``APIError``: 400 naming the header at fault and what is wrong with it.
    init(encryption: String?, cryptoKey: String?) throws(APIError) {
        guard let encryption else {
            throw .webPush(400, "Encryption is missing: an aesgcm message carries its salt there (salt=…)")
        }
        guard let entries = HeaderParameters.entries(encryption) else {
            throw .webPush(400, "Encryption is not a list of name=value parameters")
        }
        guard entries.count == 1, let parameters = entries.first else {
            throw .webPush(
                400, "Encryption holds \(entries.count) entries; an aesgcm push message has exactly one")
        }
        guard let saltText = parameters["salt"], let salt = Self.bytes(saltText), salt.count == 16 else {
            throw .webPush(400, "Encryption's salt must be 16 bytes in base64url")
        }
        if let text = parameters["rs"] {
            guard !text.isEmpty, text.utf8.count <= 10, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                let size = UInt32(text), size >= AESGCMMessage.minimumRecordSize
            else { throw .webPush(400, "Encryption's rs must be a record size in bytes, from 3") }
            recordSize = size
        } else {
            recordSize = AESGCMMessage.defaultRecordSize
        }
        guard let cryptoKey else {
            throw .webPush(400, "Crypto-Key is missing: an aesgcm message carries its sender's key there (dh=…)")
        }
        guard let keyEntries = HeaderParameters.entries(cryptoKey) else {
            throw .webPush(400, "Crypto-Key is not a list of name=value parameters")
        }
        let keys = keyEntries.compactMap { $0["dh"] }
        guard keys.count == 1, let keyText = keys.first else {
            throw .webPush(400, "Crypto-Key must hold exactly one dh (it holds \(keys.count))")
        }
        guard let key = Self.bytes(keyText), key.count == P256.pointByteCount,
            (try? P256.PublicKey(x963Representation: key)) != nil
        else { throw .webPush(400, "Crypto-Key's dh is not an uncompressed P-256 point in base64url") }
        self.salt = salt
        senderKey = key
    }

    /// The message these headers describe, with `body` as its record.
    /// - Throws: ``APIError``: 400 for a body that is not one record under the record size, or
    ///   too short to be one.
    func message(body: [UInt8]) throws(APIError) -> AESGCMMessage {
        do {
            return try AESGCMMessage(salt: salt, recordSize: recordSize, senderKey: senderKey, record: body)
        } catch {
            throw .webPush(400, "the body is not one aesgcm record: \(error.detail)")
        }
    }

    /// The bytes of `text` in base64url, padded with `=` or not.
    private static func bytes(_ text: String) -> [UInt8]? { Base64URL.decode(Base64URL.unpadded(text)) }
}
