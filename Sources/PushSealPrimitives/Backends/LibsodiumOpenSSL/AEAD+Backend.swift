#if !PUSHSEAL_CRYPTOKIT
    extension AEAD {
        /// ChaCha20-Poly1305 and XChaCha20-Poly1305 from libsodium, AES-GCM from OpenSSL.
        func backendSeal(
            key: SecretBytes, nonce: some ContiguousBytes, aad: some ContiguousBytes, plaintext: some ContiguousBytes
        ) throws -> [UInt8] {
            switch self {
            case .chaCha20Poly1305, .xChaCha20Poly1305:
                try sodiumSeal(key: key, nonce: nonce, aad: aad, plaintext: plaintext)
            case .aes128GCM, .aes256GCM:
                try gcmSeal(key: key, nonce: nonce, aad: aad, plaintext: plaintext)
            }
        }

        /// The opening counterpart of ``backendSeal(key:nonce:aad:plaintext:)``.
        func backendOpen(
            key: SecretBytes, nonce: some ContiguousBytes, aad: some ContiguousBytes, ciphertext: some ContiguousBytes
        ) throws -> [UInt8] {
            switch self {
            case .chaCha20Poly1305, .xChaCha20Poly1305:
                try sodiumOpen(key: key, nonce: nonce, aad: aad, ciphertext: ciphertext)
            case .aes128GCM, .aes256GCM:
                try gcmOpen(key: key, nonce: nonce, aad: aad, ciphertext: ciphertext)
            }
        }
    }
#endif
