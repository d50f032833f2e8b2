internal import PushSealPrimitives

/// The content encryption key and nonce of one Web Push message: RFC 8291 §3.3–3.4 feeding
/// RFC 8188 §2.2–2.3, in HKDF-SHA-256 calls of the crypto backend.
///
/// ```
/// ecdh_secret = ECDH(as_private, ua_public)          (the receiver computes it from ua_private, as_public)
/// PRK_key     = HKDF-Extract(salt = auth_secret, IKM = ecdh_secret)
/// IKM         = HKDF-Expand(PRK_key, "WebPush: info" || 0x00 || ua_public || as_public, 32)
/// PRK         = HKDF-Extract(salt = header salt, IKM)
/// CEK         = HKDF-Expand(PRK, "Content-Encoding: aes128gcm" || 0x00, 16)
/// NONCE       = HKDF-Expand(PRK, "Content-Encoding: nonce" || 0x00, 12)
/// ```
///
/// The message is one record, sequence number 0, so its nonce is NONCE itself.
struct WebPushKeySchedule {
    private static let keyInfoLabel = Array("WebPush: info\0".utf8)
    private static let keyInfo = Array("Content-Encoding: aes128gcm\0".utf8)
    private static let nonceInfo = Array("Content-Encoding: nonce\0".utf8)

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
        let keyPRK = try HKDF.extract(salt: authSecret, ikm: ecdhSecret)
        let info = Self.keyInfoLabel + receiverKey.x963Representation + senderKey.x963Representation
        let ikm = try HKDF.expand(prk: keyPRK, info: info, length: HKDF.hashByteCount)
        let prk = try HKDF.extract(salt: salt, ikm: ikm)
        contentKey = try HKDF.expand(prk: prk, info: Self.keyInfo, length: AEAD.aes128GCM.keyByteCount)
        nonce = try HKDF.expand(prk: prk, info: Self.nonceInfo, length: AEAD.aes128GCM.nonceByteCount)
            .withUnsafeBytes { Array($0) }
    }
}
