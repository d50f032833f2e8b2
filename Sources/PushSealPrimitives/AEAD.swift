/// The authenticated ciphers PushSeal composes: the ChaCha20-Poly1305 family and AES-GCM, from
/// libsodium and OpenSSL, or from CryptoKit (see the backends). Ciphertexts are `sealed || tag`.
package enum AEAD: Sendable, Hashable {
    /// ChaCha20-Poly1305 as in RFC 8439 (libsodium's `_ietf` construction), HPKE AEAD 0x0003.
    case chaCha20Poly1305
    /// XChaCha20-Poly1305 with a 24-byte nonce, envelope suite 0x03.
    case xChaCha20Poly1305
    /// AES-128-GCM with a 96-bit nonce, HPKE AEAD 0x0001 (only for RFC 9180's test vectors).
    case aes128GCM
    /// AES-256-GCM with a 96-bit nonce, HPKE AEAD 0x0002.
    case aes256GCM

    /// Key length in bytes.
    package var keyByteCount: Int {
        switch self {
        case .chaCha20Poly1305, .xChaCha20Poly1305, .aes256GCM: 32
        case .aes128GCM: 16
        }
    }

    /// Nonce length in bytes; any other length is refused before the library is called.
    package var nonceByteCount: Int {
        self == .xChaCha20Poly1305 ? 24 : 12
    }

    /// Tag length in bytes.
    package var tagByteCount: Int { 16 }

    /// Encrypts and authenticates `plaintext`, also authenticating `aad`.
    /// - Returns: the ciphertext followed by the tag.
    /// - Throws: ``CryptoFailure/invalidKey(_:)`` or ``CryptoFailure/invalidInput(_:)`` on bad sizes.
    package func seal(
        key: SecretBytes, nonce: some ContiguousBytes, aad: some ContiguousBytes, plaintext: some ContiguousBytes
    ) throws -> [UInt8] {
        try checkSizes(key: key, nonce: nonce)
        return try backendSeal(key: key, nonce: nonce, aad: aad, plaintext: plaintext)
    }

    /// Verifies and decrypts `ciphertext` (sealed bytes followed by the tag).
    /// - Throws: ``CryptoFailure/authenticationFailed`` for any ciphertext, tag or AAD that does not verify.
    package func open(
        key: SecretBytes, nonce: some ContiguousBytes, aad: some ContiguousBytes, ciphertext: some ContiguousBytes
    ) throws -> [UInt8] {
        try checkSizes(key: key, nonce: nonce)
        guard ciphertext.withUnsafeBytes({ $0.count }) >= tagByteCount else {
            throw CryptoFailure.authenticationFailed
        }
        return try backendOpen(key: key, nonce: nonce, aad: aad, ciphertext: ciphertext)
    }

    private func checkSizes(key: SecretBytes, nonce: some ContiguousBytes) throws {
        guard key.count == keyByteCount else {
            throw CryptoFailure.invalidKey("\(self) takes a \(keyByteCount)-byte key, not \(key.count)")
        }
        let nonceCount = nonce.withUnsafeBytes { $0.count }
        guard nonceCount == nonceByteCount else {
            throw CryptoFailure.invalidInput("\(self) takes a \(nonceByteCount)-byte nonce, not \(nonceCount)")
        }
    }
}
