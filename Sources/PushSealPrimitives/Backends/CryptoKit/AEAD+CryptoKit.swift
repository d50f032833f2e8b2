#if PUSHSEAL_CRYPTOKIT
    #if canImport(CryptoKit)
        import CryptoKit
    #else
        import CryptoKitStandIn
    #endif

    extension AEAD {
        /// ChaCha20-Poly1305 and AES-GCM from CryptoKit; XChaCha20-Poly1305 as ChaCha20-Poly1305
        /// under the HChaCha20 subkey, with the nonce `0x00000000 || nonce[16..<24]`.
        func backendSeal(
            key: SecretBytes, nonce: some ContiguousBytes, aad: some ContiguousBytes, plaintext: some ContiguousBytes
        ) throws -> [UInt8] {
            do {
                return try nonce.withUnsafeBytes { nonce in
                    try aad.withUnsafeBytes { aad in
                        try plaintext.withUnsafeBytes { plaintext in
                            switch self {
                            case .chaCha20Poly1305:
                                let box = try Kit.ChaChaPoly.seal(
                                    plaintext, using: key.symmetricKey, nonce: try Kit.ChaChaPoly.Nonce(data: nonce),
                                    authenticating: aad)
                                return Array(box.ciphertext) + Array(box.tag)
                            case .xChaCha20Poly1305:
                                let (subkey, tailNonce) = Self.xChaChaParameters(key: key, nonce: nonce)
                                let box = try Kit.ChaChaPoly.seal(
                                    plaintext, using: subkey.symmetricKey,
                                    nonce: try Kit.ChaChaPoly.Nonce(data: tailNonce), authenticating: aad)
                                return Array(box.ciphertext) + Array(box.tag)
                            case .aes128GCM, .aes256GCM:
                                let box = try Kit.AES.GCM.seal(
                                    plaintext, using: key.symmetricKey, nonce: try Kit.AES.GCM.Nonce(data: nonce),
                                    authenticating: aad)
                                return Array(box.ciphertext) + Array(box.tag)
                            }
                        }
                    }
                }
            } catch {
                throw CryptoFailure.library("CryptoKit refused to encrypt")
            }
        }

        /// The opening counterpart of ``backendSeal(key:nonce:aad:plaintext:)``; any failure is
        /// ``CryptoFailure/authenticationFailed``.
        func backendOpen(
            key: SecretBytes, nonce: some ContiguousBytes, aad: some ContiguousBytes, ciphertext: some ContiguousBytes
        ) throws -> [UInt8] {
            do {
                return try nonce.withUnsafeBytes { nonce in
                    try aad.withUnsafeBytes { aad in
                        try ciphertext.withUnsafeBytes { sealed in
                            let body = UnsafeRawBufferPointer(rebasing: sealed[..<(sealed.count - tagByteCount)])
                            let tag = UnsafeRawBufferPointer(rebasing: sealed[(sealed.count - tagByteCount)...])
                            switch self {
                            case .chaCha20Poly1305:
                                let box = try Kit.ChaChaPoly.SealedBox(
                                    nonce: try Kit.ChaChaPoly.Nonce(data: nonce), ciphertext: body, tag: tag)
                                return Array(try Kit.ChaChaPoly.open(box, using: key.symmetricKey, authenticating: aad))
                            case .xChaCha20Poly1305:
                                let (subkey, tailNonce) = Self.xChaChaParameters(key: key, nonce: nonce)
                                let box = try Kit.ChaChaPoly.SealedBox(
                                    nonce: try Kit.ChaChaPoly.Nonce(data: tailNonce), ciphertext: body, tag: tag)
                                return Array(
                                    try Kit.ChaChaPoly.open(box, using: subkey.symmetricKey, authenticating: aad))
                            case .aes128GCM, .aes256GCM:
                                let box = try Kit.AES.GCM.SealedBox(
                                    nonce: try Kit.AES.GCM.Nonce(data: nonce), ciphertext: body, tag: tag)
                                return Array(try Kit.AES.GCM.open(box, using: key.symmetricKey, authenticating: aad))
                            }
                        }
                    }
                }
            } catch {
                throw CryptoFailure.authenticationFailed
            }
        }

        /// XChaCha20's subkey and 12-byte ChaCha20 nonce for a 24-byte nonce.
        private static func xChaChaParameters(key: SecretBytes, nonce: UnsafeRawBufferPointer)
            -> (subkey: SecretBytes, nonce: [UInt8])
        {
            let subkey = HChaCha20.subkey(key: key, nonce: UnsafeRawBufferPointer(rebasing: nonce[..<16]))
            return (subkey, [0, 0, 0, 0] + Array(nonce[16..<24]))
        }
    }
#endif
