internal import CSodium
public import Foundation

/// ChaCha20-Poly1305 (RFC 8439), as CryptoKit's `ChaChaPoly`, on libsodium's IETF construction.
public enum ChaChaPoly {
    /// A 12-byte nonce, exactly.
    public typealias Nonce = AEADNonce<TwelveBytes>
    /// A nonce, a ciphertext and its 16-byte tag.
    public typealias SealedBox = AEADSealedBox<Nonce>

    /// ChaCha20-Poly1305's nonce rule: 12 bytes.
    public enum TwelveBytes: AEADNonceRule {
        /// True for 12.
        public static func accepts(byteCount: Int) -> Bool { byteCount == 12 }
    }

    /// Encrypts and authenticates `message`, and authenticates `authenticatedData`.
    /// - Throws: `CryptoKitError.incorrectKeySize` unless the key has 256 bits.
    public static func seal<Plaintext: DataProtocol, AuthenticatedData: DataProtocol>(
        _ message: Plaintext, using key: SymmetricKey, nonce: Nonce? = nil,
        authenticating authenticatedData: AuthenticatedData
    ) throws -> SealedBox {
        guard key.bitCount == 256 else { throw CryptoKitError.incorrectKeySize }
        Sodium.ready()
        let nonce = nonce ?? Nonce()
        let plaintext = Array(message)
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        var tag = [UInt8](repeating: 0, count: 16)
        let status = key.withUnsafeBytes { key in
            withContiguousBytes(of: authenticatedData) { aad in
                crypto_aead_chacha20poly1305_ietf_encrypt_detached(
                    &ciphertext, &tag, nil, plaintext, UInt64(plaintext.count),
                    aad.bytePointer, UInt64(aad.count), nil, nonce.bytes,
                    key.bytePointer)
            }
        }
        guard status == 0 else { throw CryptoKitError.underlyingCoreCryptoError(error: status) }
        return try SealedBox(nonce: nonce, ciphertext: ciphertext, tag: tag)
    }

    /// Verifies and decrypts `sealedBox`.
    /// - Throws: `CryptoKitError.authenticationFailure` when the tag does not verify.
    public static func open<AuthenticatedData: DataProtocol>(
        _ sealedBox: SealedBox, using key: SymmetricKey, authenticating authenticatedData: AuthenticatedData
    ) throws -> Data {
        guard key.bitCount == 256 else { throw CryptoKitError.incorrectKeySize }
        Sodium.ready()
        let ciphertext = Array(sealedBox.ciphertext)
        let tag = Array(sealedBox.tag)
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count)
        let status = key.withUnsafeBytes { key in
            withContiguousBytes(of: authenticatedData) { aad in
                crypto_aead_chacha20poly1305_ietf_decrypt_detached(
                    &plaintext, nil, ciphertext, UInt64(ciphertext.count), tag,
                    aad.bytePointer, UInt64(aad.count), sealedBox.nonce.bytes,
                    key.bytePointer)
            }
        }
        guard status == 0 else { throw CryptoKitError.authenticationFailure }
        return Data(plaintext)
    }
}
