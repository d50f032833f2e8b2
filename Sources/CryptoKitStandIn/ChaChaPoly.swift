internal import CSodium
public import Foundation

/// ChaCha20-Poly1305 (RFC 8439), as CryptoKit's `ChaChaPoly`, on libsodium's IETF construction.
public enum ChaChaPoly {
    /// A 12-byte nonce.
    public struct Nonce: ContiguousBytes, Sequence, Sendable {
        let bytes: [UInt8]

        /// A random nonce.
        public init() {
            bytes = SystemRandom.bytes(12)
        }

        /// The nonce `data`, which must be exactly 12 bytes.
        /// - Throws: `CryptoKitError.incorrectParameterSize` for any other length.
        public init<D: DataProtocol>(data: D) throws {
            guard data.count == 12 else { throw CryptoKitError.incorrectParameterSize }
            bytes = Array(data)
        }

        /// Iterates over the nonce's bytes.
        public func makeIterator() -> IndexingIterator<[UInt8]> { bytes.makeIterator() }

        /// Calls `body` with the nonce's bytes.
        public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
            try bytes.withUnsafeBytes(body)
        }
    }

    /// A nonce, a ciphertext and its 16-byte tag.
    public struct SealedBox: Sendable {
        /// The nonce.
        public let nonce: Nonce
        /// The ciphertext, as long as the plaintext.
        public let ciphertext: Data
        /// The authentication tag.
        public let tag: Data

        /// A box from its parts.
        /// - Throws: `CryptoKitError.incorrectParameterSize` when the tag is not 16 bytes.
        public init<C: DataProtocol, T: DataProtocol>(nonce: Nonce, ciphertext: C, tag: T) throws {
            guard tag.count == 16 else { throw CryptoKitError.incorrectParameterSize }
            self.nonce = nonce
            self.ciphertext = Data(ciphertext)
            self.tag = Data(tag)
        }

        /// `nonce || ciphertext || tag`.
        public var combined: Data { Data(nonce.bytes) + ciphertext + tag }
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
