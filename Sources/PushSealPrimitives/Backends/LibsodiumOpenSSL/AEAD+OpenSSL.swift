#if !PUSHSEAL_CRYPTOKIT
    internal import COpenSSL

    extension AEAD {
        private var gcmCipher: OpaquePointer? {
            self == .aes128GCM ? OpenSSL.aes128GCM : OpenSSL.aes256GCM
        }

        /// AES-GCM encryption through OpenSSL's EVP interface, with a 96-bit nonce and a 16-byte tag.
        func gcmSeal(
            key: SecretBytes, nonce: some ContiguousBytes, aad: some ContiguousBytes, plaintext: some ContiguousBytes
        ) throws -> [UInt8] {
            let cipher = try OpenSSL.require(gcmCipher, "\(self)")
            guard let context = EVP_CIPHER_CTX_new() else { throw OpenSSL.failure("EVP_CIPHER_CTX_new") }
            defer { EVP_CIPHER_CTX_free(context) }

            let messageCount = plaintext.withUnsafeBytes { $0.count }
            var output = [UInt8](repeating: 0, count: messageCount + tagByteCount)
            let succeeded = key.withUnsafeBytes { key in
                nonce.withUnsafeBytes { nonce in
                    aad.withUnsafeBytes { aad in
                        plaintext.withUnsafeBytes { message in
                            output.withUnsafeMutableBufferPointer { out in
                                var written: Int32 = 0
                                guard EVP_EncryptInit_ex2(context, cipher, key.bytePointer, nonce.bytePointer, nil) == 1
                                else { return false }
                                if aad.count > 0,
                                    EVP_EncryptUpdate(context, nil, &written, aad.bytePointer, Int32(aad.count)) != 1
                                {
                                    return false
                                }
                                var total = 0
                                if message.count > 0 {
                                    guard
                                        EVP_EncryptUpdate(
                                            context, out.baseAddress, &written, message.bytePointer,
                                            Int32(message.count))
                                            == 1
                                    else { return false }
                                    total = Int(written)
                                }
                                guard let base = out.baseAddress,
                                    EVP_EncryptFinal_ex(context, base + total, &written) == 1
                                else { return false }
                                total += Int(written)
                                return total == message.count
                                    && EVP_CIPHER_CTX_ctrl(
                                        context, EVP_CTRL_AEAD_GET_TAG, Int32(tagByteCount), base + total) == 1
                            }
                        }
                    }
                }
            }
            guard succeeded else { throw OpenSSL.failure("AES-GCM encryption") }
            return output
        }

        /// AES-GCM decryption; a tag that does not verify is ``CryptoFailure/authenticationFailed``.
        func gcmOpen(
            key: SecretBytes, nonce: some ContiguousBytes, aad: some ContiguousBytes, ciphertext: some ContiguousBytes
        ) throws -> [UInt8] {
            let cipher = try OpenSSL.require(gcmCipher, "\(self)")
            guard let context = EVP_CIPHER_CTX_new() else { throw OpenSSL.failure("EVP_CIPHER_CTX_new") }
            defer { EVP_CIPHER_CTX_free(context) }

            let messageCount = ciphertext.withUnsafeBytes { $0.count } - tagByteCount
            var output = [UInt8](repeating: 0, count: messageCount + 1)
            var tag = ciphertext.withUnsafeBytes { Array($0.suffix(tagByteCount)) }
            let verified = key.withUnsafeBytes { key in
                nonce.withUnsafeBytes { nonce in
                    aad.withUnsafeBytes { aad in
                        ciphertext.withUnsafeBytes { cipherText in
                            output.withUnsafeMutableBufferPointer { out in
                                var written: Int32 = 0
                                guard EVP_DecryptInit_ex2(context, cipher, key.bytePointer, nonce.bytePointer, nil) == 1
                                else { return false }
                                if aad.count > 0,
                                    EVP_DecryptUpdate(context, nil, &written, aad.bytePointer, Int32(aad.count)) != 1
                                {
                                    return false
                                }
                                var total = 0
                                if messageCount > 0 {
                                    guard
                                        EVP_DecryptUpdate(
                                            context, out.baseAddress, &written, cipherText.bytePointer,
                                            Int32(messageCount)) == 1
                                    else { return false }
                                    total = Int(written)
                                }
                                guard let base = out.baseAddress,
                                    EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, Int32(tag.count), &tag) == 1,
                                    EVP_DecryptFinal_ex(context, base + total, &written) == 1
                                else { return false }
                                return total + Int(written) == messageCount
                            }
                        }
                    }
                }
            }
            guard verified else {
                OpenSSL.clearErrors()
                throw CryptoFailure.authenticationFailed
            }
            output.removeLast()
            return output
        }
    }
#endif
