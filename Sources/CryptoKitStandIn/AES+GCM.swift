internal import COpenSSL
public import Foundation

/// AES, as CryptoKit's `AES` namespace: the GCM mode only.
public enum AES {
    /// AES-GCM with a 16-byte tag, on OpenSSL's EVP interface; 128-, 192- and 256-bit keys.
    public enum GCM {
        /// A nonce of 12 bytes or more (12 is the standard size).
        public typealias Nonce = AEADNonce<TwelveBytesOrMore>
        /// A nonce, a ciphertext and its 16-byte tag.
        public typealias SealedBox = AEADSealedBox<Nonce>

        /// AES-GCM's nonce rule: at least 12 bytes.
        public enum TwelveBytesOrMore: AEADNonceRule {
            /// True from 12.
            public static func accepts(byteCount: Int) -> Bool { byteCount >= 12 }
        }

        /// Encrypts and authenticates `message`, and authenticates `authenticatedData`.
        /// - Throws: `CryptoKitError.incorrectKeySize` unless the key has 128, 192 or 256 bits.
        public static func seal<Plaintext: DataProtocol, AuthenticatedData: DataProtocol>(
            _ message: Plaintext, using key: SymmetricKey, nonce: Nonce? = nil,
            authenticating authenticatedData: AuthenticatedData
        ) throws -> SealedBox {
            let nonce = nonce ?? Nonce()
            let cipher = try GCMOperation(key: key, nonce: nonce, encrypting: true)
            try withContiguousBytes(of: authenticatedData) { try cipher.authenticate($0) }
            let ciphertext = try withContiguousBytes(of: message) { try cipher.transform($0) }
            return try SealedBox(nonce: nonce, ciphertext: ciphertext, tag: try cipher.finishSealing())
        }

        /// Verifies and decrypts `sealedBox`.
        /// - Throws: `CryptoKitError.authenticationFailure` when the tag does not verify.
        public static func open<AuthenticatedData: DataProtocol>(
            _ sealedBox: SealedBox, using key: SymmetricKey, authenticating authenticatedData: AuthenticatedData
        ) throws -> Data {
            let cipher = try GCMOperation(key: key, nonce: sealedBox.nonce, encrypting: false)
            try withContiguousBytes(of: authenticatedData) { try cipher.authenticate($0) }
            let plaintext = try withContiguousBytes(of: sealedBox.ciphertext) { try cipher.transform($0) }
            try cipher.finishOpening(tag: Array(sealedBox.tag))
            return Data(plaintext)
        }
    }
}

/// One AES-GCM encryption or decryption in an `EVP_CIPHER_CTX`.
private struct GCMOperation: ~Copyable {
    private let context: OpaquePointer

    init(key: SymmetricKey, nonce: AES.GCM.Nonce, encrypting: Bool) throws {
        let cipher: OpaquePointer?
        switch key.bitCount {
        case 128: cipher = OpenSSLAlgorithms.aes128GCM
        case 192: cipher = OpenSSLAlgorithms.aes192GCM
        case 256: cipher = OpenSSLAlgorithms.aes256GCM
        default: throw CryptoKitError.incorrectKeySize
        }
        guard let context = EVP_CIPHER_CTX_new() else { throw OpenSSLAlgorithms.failure() }
        let initialised = key.withUnsafeBytes { key in
            let keyBytes = key.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return EVP_CipherInit_ex2(context, cipher, nil, nil, encrypting ? 1 : 0, nil) == 1
                && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(nonce.bytes.count), nil) == 1
                && EVP_CipherInit_ex2(context, nil, keyBytes, nonce.bytes, -1, nil) == 1
        }
        guard initialised else {
            EVP_CIPHER_CTX_free(context)
            throw OpenSSLAlgorithms.failure()
        }
        self.context = context
    }

    func authenticate(_ aad: UnsafeRawBufferPointer) throws {
        guard aad.count > 0 else { return }
        var written: Int32 = 0
        guard
            EVP_CipherUpdate(
                context, nil, &written, aad.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(aad.count)) == 1
        else { throw OpenSSLAlgorithms.failure() }
    }

    func transform(_ input: UnsafeRawBufferPointer) throws -> [UInt8] {
        var output = [UInt8](repeating: 0, count: input.count)
        guard input.count > 0 else { return output }
        var written: Int32 = 0
        guard
            EVP_CipherUpdate(
                context, &output, &written, input.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(input.count))
                == 1, Int(written) == input.count
        else { throw OpenSSLAlgorithms.failure() }
        return output
    }

    func finishSealing() throws -> [UInt8] {
        var written: Int32 = 0
        var trailer = [UInt8](repeating: 0, count: 16)
        var tag = [UInt8](repeating: 0, count: 16)
        guard EVP_CipherFinal_ex(context, &trailer, &written) == 1, written == 0,
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, 16, &tag) == 1
        else { throw OpenSSLAlgorithms.failure() }
        return tag
    }

    func finishOpening(tag: [UInt8]) throws {
        var written: Int32 = 0
        var trailer = [UInt8](repeating: 0, count: 16)
        var tag = tag
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tag.count), &tag) == 1,
            EVP_CipherFinal_ex(context, &trailer, &written) == 1
        else {
            ERR_clear_error()
            throw CryptoKitError.authenticationFailure
        }
    }

    deinit { EVP_CIPHER_CTX_free(context) }
}
