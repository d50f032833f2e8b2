#if !PUSHSEAL_CRYPTOKIT
    internal import CSodium

    extension AEAD {
        /// ChaCha20-Poly1305 and XChaCha20-Poly1305 through libsodium's combined-mode calls.
        func sodiumSeal(
            key: SecretBytes, nonce: some ContiguousBytes, aad: some ContiguousBytes, plaintext: some ContiguousBytes
        ) throws -> [UInt8] {
            Sodium.ensureInitialised()
            let seal =
                self == .xChaCha20Poly1305
                ? crypto_aead_xchacha20poly1305_ietf_encrypt : crypto_aead_chacha20poly1305_ietf_encrypt
            let messageCount = plaintext.withUnsafeBytes { $0.count }
            var output = [UInt8](repeating: 0, count: messageCount + tagByteCount)
            var outputCount: UInt64 = 0
            let status = key.withBytePointer { key in
                nonce.withNonNullBytes { nonce, _ in
                    aad.withNonNullBytes { aad, aadCount in
                        plaintext.withNonNullBytes { message, messageCount in
                            seal(
                                &output, &outputCount, message, UInt64(messageCount), aad, UInt64(aadCount),
                                nil, nonce, key)
                        }
                    }
                }
            }
            guard status == 0, outputCount == UInt64(output.count) else {
                throw CryptoFailure.library("libsodium refused to encrypt")
            }
            return output
        }

        /// Opens a combined-mode ciphertext; any failure is ``CryptoFailure/authenticationFailed``.
        func sodiumOpen(
            key: SecretBytes, nonce: some ContiguousBytes, aad: some ContiguousBytes, ciphertext: some ContiguousBytes
        ) throws -> [UInt8] {
            Sodium.ensureInitialised()
            let open =
                self == .xChaCha20Poly1305
                ? crypto_aead_xchacha20poly1305_ietf_decrypt : crypto_aead_chacha20poly1305_ietf_decrypt
            let cipherCount = ciphertext.withUnsafeBytes { $0.count }
            // One spare byte keeps the buffer's address valid for an empty plaintext.
            var output = [UInt8](repeating: 0, count: cipherCount - tagByteCount + 1)
            var outputCount: UInt64 = 0
            let status = key.withBytePointer { key in
                nonce.withNonNullBytes { nonce, _ in
                    aad.withNonNullBytes { aad, aadCount in
                        ciphertext.withNonNullBytes { cipher, cipherCount in
                            open(
                                &output, &outputCount, nil, cipher, UInt64(cipherCount), aad, UInt64(aadCount),
                                nonce, key)
                        }
                    }
                }
            }
            guard status == 0 else { throw CryptoFailure.authenticationFailed }
            output.removeSubrange(Int(outputCount)...)
            return output
        }
    }

    extension UnsafeRawBufferPointer {
        /// The start as a byte pointer, as OpenSSL's APIs want it (nil for an empty buffer).
        var bytePointer: UnsafePointer<UInt8>? {
            baseAddress?.assumingMemoryBound(to: UInt8.self)
        }
    }
#endif
