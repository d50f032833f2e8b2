#if !PUSHSEAL_CRYPTOKIT
    internal import CSodium

    extension Base64URL {
        /// The encoding of key material, through libsodium's constant-time codec.
        package static func encodeSecret(_ secret: SecretBytes) -> String {
            Sodium.ensureInitialised()
            return secret.withNonNullBytes { input, count in
                var encoded = [CChar](repeating: 0, count: encodedCount(count) + 1)
                _ = sodium_bin2base64(&encoded, encoded.count, input, count, sodium_base64_VARIANT_URLSAFE_NO_PADDING)
                return String(decoding: encoded.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }

        /// Decodes key material straight into wiped storage, through libsodium's constant-time codec,
        /// so that no plain copy of the key is left behind.
        package static func decodeSecret(_ text: String) -> SecretBytes? {
            Sodium.ensureInitialised()
            let ascii = Array(text.utf8)
            var length = 0
            var valid = true
            let capacity = ascii.count * 3 / 4 + 1
            let scratch = SecretBytes(count: capacity) { (target: UnsafeMutablePointer<UInt8>) in
                var decodedLength = 0
                valid =
                    ascii.withNonNullBytes { input, count in
                        input.withMemoryRebound(to: CChar.self, capacity: max(count, 1)) { text in
                            sodium_base642bin(
                                target, capacity, text, count, nil, &decodedLength, nil,
                                sodium_base64_VARIANT_URLSAFE_NO_PADDING)
                        }
                    } == 0
                length = decodedLength
            }
            guard valid else { return nil }
            return scratch.withUnsafeBytes { SecretBytes(copying: $0.prefix(length)) }
        }
    }
#endif
