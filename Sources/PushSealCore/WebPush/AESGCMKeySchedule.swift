internal import PushSealPrimitives

/// The content encryption key and nonce of one legacy `aesgcm` message:
/// draft-ietf-webpush-encryption-04 §3–4 feeding draft-ietf-httpbis-encryption-encoding-03, in
/// HKDF-SHA-256 calls of the crypto backend. It differs from RFC 8291's (``WebPushKeySchedule``)
/// in the authentication step's info and in a context of both public keys, each with its length,
/// appended to the key's and nonce's info:
///
/// ```
/// ecdh_secret = ECDH(ua_private, as_public)
/// PRK_combine = HKDF-Extract(salt = auth_secret, IKM = ecdh_secret)
/// IKM         = HKDF-Expand(PRK_combine, "Content-Encoding: auth" || 0x00, 32)
/// context     = "P-256" || 0x00 || 0x00 0x41 || ua_public || 0x00 0x41 || as_public
/// PRK         = HKDF-Extract(salt = the Encryption header's salt, IKM)
/// CEK         = HKDF-Expand(PRK, "Content-Encoding: aesgcm" || 0x00 || context, 16)
/// NONCE       = HKDF-Expand(PRK, "Content-Encoding: nonce" || 0x00 || context, 12)
/// ```
///
/// A push message is one record (draft-04 §5), sequence number 0, so its nonce is NONCE itself.
struct AESGCMKeySchedule {
    private static let authInfo = Array("Content-Encoding: auth\0".utf8)
    private static let keyInfo = Array("Content-Encoding: aesgcm\0".utf8)
    private static let nonceInfo = Array("Content-Encoding: nonce\0".utf8)
    private static let curveLabel = Array("P-256\0".utf8)

    /// The AES-128-GCM key.
    let contentKey: SecretBytes
    /// The record's nonce.
    let nonce: [UInt8]

    /// Derives the key and nonce from the ECDH secret and both public keys.
    /// - Throws: ``CryptoFailure`` when the backend fails.
    init(
        ecdhSecret: SecretBytes, authSecret: SecretBytes, receiverKey: P256.PublicKey, senderKey: P256.PublicKey,
        salt: [UInt8]
    ) throws {
        let combined = try HKDF.extract(salt: authSecret, ikm: ecdhSecret)
        let ikm = try HKDF.expand(prk: combined, info: Self.authInfo, length: HKDF.hashByteCount)
        let prk = try HKDF.extract(salt: salt, ikm: ikm)
        let context =
            Self.curveLabel + Self.lengthPrefixed(receiverKey.x963Representation)
            + Self.lengthPrefixed(senderKey.x963Representation)
        contentKey = try HKDF.expand(
            prk: prk, info: Self.keyInfo + context, length: AEAD.aes128GCM.keyByteCount)
        nonce = try HKDF.expand(prk: prk, info: Self.nonceInfo + context, length: AEAD.aes128GCM.nonceByteCount)
            .withUnsafeBytes { Array($0) }
    }

    /// `bytes` after its length as a two-byte big-endian integer.
    private static func lengthPrefixed(_ bytes: [UInt8]) -> [UInt8] {
        [UInt8(truncatingIfNeeded: bytes.count >> 8), UInt8(truncatingIfNeeded: bytes.count)] + bytes
    }
}
