internal import PushSealPrimitives

/// The content encryption key and nonce of one Web Push message, in HKDF-SHA-256 calls of the
/// crypto backend. Both codings take the same four steps and differ only in their info strings:
///
/// ```
/// ecdh_secret = ECDH(as_private, ua_public)          (the receiver computes it from ua_private, as_public)
/// PRK_key     = HKDF-Extract(salt = auth_secret, IKM = ecdh_secret)
/// IKM         = HKDF-Expand(PRK_key, ikm_info, 32)
/// PRK         = HKDF-Extract(salt = the message's salt, IKM)
/// CEK         = HKDF-Expand(PRK, key_info, 16)
/// NONCE       = HKDF-Expand(PRK, nonce_info, 12)
/// ```
///
/// - `aes128gcm` (RFC 8291 §3.3–3.4 feeding RFC 8188 §2.2–2.3): `ikm_info` is
///   `"WebPush: info" || 0x00 || ua_public || as_public`; `key_info` is
///   `"Content-Encoding: aes128gcm" || 0x00`; `nonce_info` is `"Content-Encoding: nonce" || 0x00`.
/// - `aesgcm` (draft-ietf-webpush-encryption-04 §3–4): `ikm_info` is
///   `"Content-Encoding: auth" || 0x00`; `key_info` and `nonce_info` are
///   `"Content-Encoding: aesgcm" || 0x00` and `"Content-Encoding: nonce" || 0x00`, each followed by
///   the context `"P-256" || 0x00 || 0x00 0x41 || ua_public || 0x00 0x41 || as_public`.
///
/// A message is one record, sequence number 0, so its nonce is NONCE itself.
struct WebPushKeySchedule {
    private static let keyInfoLabel = Array("WebPush: info\0".utf8)
    private static let authInfo = Array("Content-Encoding: auth\0".utf8)
    private static let aes128gcmKeyInfo = Array("Content-Encoding: aes128gcm\0".utf8)
    private static let aesgcmKeyInfo = Array("Content-Encoding: aesgcm\0".utf8)
    private static let nonceInfo = Array("Content-Encoding: nonce\0".utf8)
    private static let curveLabel = Array("P-256\0".utf8)

    /// The AES-128-GCM key.
    let contentKey: SecretBytes
    /// The record's nonce.
    let nonce: [UInt8]

    /// Derives the key and nonce of `coding` from the ECDH secret and both public keys.
    /// - Throws: ``CryptoFailure`` when the backend fails.
    init(
        _ coding: WebPushCoding, ecdhSecret: SecretBytes, authSecret: SecretBytes, receiverKey: P256.PublicKey,
        senderKey: P256.PublicKey, salt: [UInt8]
    ) throws {
        let receiver = receiverKey.x963Representation
        let sender = senderKey.x963Representation
        let ikmInfo: [UInt8]
        let keyInfo: [UInt8]
        let nonceInfo: [UInt8]
        switch coding {
        case .aes128gcm:
            (ikmInfo, keyInfo, nonceInfo) = (
                Self.keyInfoLabel + receiver + sender, Self.aes128gcmKeyInfo, Self.nonceInfo
            )
        case .aesgcm:
            let context = Self.curveLabel + Self.lengthPrefixed(receiver) + Self.lengthPrefixed(sender)
            (ikmInfo, keyInfo, nonceInfo) = (Self.authInfo, Self.aesgcmKeyInfo + context, Self.nonceInfo + context)
        }
        let keyPRK = try HKDF.extract(salt: authSecret, ikm: ecdhSecret)
        let ikm = try HKDF.expand(prk: keyPRK, info: ikmInfo, length: HKDF.hashByteCount)
        let prk = try HKDF.extract(salt: salt, ikm: ikm)
        contentKey = try HKDF.expand(prk: prk, info: keyInfo, length: AEAD.aes128GCM.keyByteCount)
        nonce = try HKDF.expand(prk: prk, info: nonceInfo, length: AEAD.aes128GCM.nonceByteCount)
            .withUnsafeBytes { Array($0) }
    }

    /// Opens one `record` of `coding` sealed by `senderKey` with `salt`, to `receiver`: the
    /// record's plaintext, padding and all.
    /// - Throws: ``WebPushError/Reason/decryptionFailed`` for any failure, whatever its cause.
    static func openRecord(
        _ record: some ContiguousBytes, _ coding: WebPushCoding, with receiver: WebPushReceiver,
        senderKey: P256.PublicKey, salt: [UInt8]
    ) throws(WebPushError) -> [UInt8] {
        do {
            let schedule = try WebPushKeySchedule(
                coding, ecdhSecret: try receiver.privateKey.sharedSecret(with: senderKey),
                authSecret: receiver.authSecret, receiverKey: receiver.privateKey.publicKey, senderKey: senderKey,
                salt: salt)
            return try AEAD.aes128GCM.open(
                key: schedule.contentKey, nonce: schedule.nonce, aad: [UInt8](), ciphertext: record)
        } catch {
            throw WebPushError(
                .decryptionFailed, "the record does not open with this receiver's key and authentication secret")
        }
    }

    /// `bytes` after its length as a two-byte big-endian integer.
    private static func lengthPrefixed(_ bytes: [UInt8]) -> [UInt8] {
        [UInt8(truncatingIfNeeded: bytes.count >> 8), UInt8(truncatingIfNeeded: bytes.count)] + bytes
    }
}
