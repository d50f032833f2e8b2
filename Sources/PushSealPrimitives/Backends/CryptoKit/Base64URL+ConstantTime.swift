#if PUSHSEAL_CRYPTOKIT
    extension Base64URL {
        /// The encoding of key material, in constant time: each character is computed with
        /// arithmetic and masks, never a table lookup or a branch on the secret value.
        package static func encodeSecret(_ secret: SecretBytes) -> String {
            var output = [UInt8](repeating: 0, count: encodedCount(secret.count))
            defer { wipe(&output) }
            secret.withUnsafeBytes { input in
                var target = 0
                var index = 0
                while index < input.count {
                    let remaining = min(3, input.count - index)
                    let b0 = UInt32(input[index])
                    let b1 = remaining > 1 ? UInt32(input[index + 1]) : 0
                    let b2 = remaining > 2 ? UInt32(input[index + 2]) : 0
                    let word = b0 << 16 | b1 << 8 | b2
                    for slot in 0...remaining {
                        output[target] = character(UInt8(truncatingIfNeeded: word >> (18 - 6 * UInt32(slot)) & 0x3F))
                        target += 1
                    }
                    index += 3
                }
            }
            return String(decoding: output, as: UTF8.self)
        }

        /// Decodes key material straight into wiped storage, in constant time, refusing what the
        /// public decoder refuses (padding, other characters, non-zero trailing bits).
        package static func decodeSecret(_ text: String) -> SecretBytes? {
            var ascii = Array(text.utf8)
            defer { wipe(&ascii) }
            guard ascii.count % 4 != 1 else { return nil }
            var invalid: UInt8 = 0
            let decoded = SecretBytes(
                count: ascii.count * 3 / 4,
                filling: { out in
                    var target = 0
                    var index = 0
                    while index < ascii.count {
                        let count = min(4, ascii.count - index)
                        var word: UInt32 = 0
                        for slot in 0..<4 {
                            let value = slot < count ? value(ascii[index + slot]) : 0
                            invalid |= value >> 6 & 1 & (slot < count ? 1 : 0)
                            word |= UInt32(value & 0x3F) << (18 - 6 * UInt32(slot))
                        }
                        // Canonical: bits past the last whole byte must be zero.
                        // (x + mask) >> width is 0 for x == 0 and 1 otherwise, with no branch on x.
                        if count == 2 { invalid |= UInt8(truncatingIfNeeded: ((word >> 12 & 0x0F) + 0x0F) >> 4) }
                        if count == 3 { invalid |= UInt8(truncatingIfNeeded: ((word >> 6 & 0x03) + 0x03) >> 2) }
                        for byte in 0..<(count - 1) {
                            out[target] = UInt8(truncatingIfNeeded: word >> (16 - 8 * UInt32(byte)))
                            target += 1
                        }
                        index += 4
                    }
                })
            return invalid == 0 ? decoded : nil
        }

        /// The base64url character of a 6-bit value, without a table or a secret-dependent branch.
        private static func character(_ value: UInt8) -> UInt8 {
            let v = Int16(value)
            // Masks are all ones when the value falls in a range: A-Z, a-z, 0-9, '-', '_'.
            let isUpper = ((v - 26) >> 8) & 0xFF
            let isLower = ((25 - v) >> 8) & ((v - 52) >> 8) & 0xFF
            let isDigit = ((51 - v) >> 8) & ((v - 62) >> 8) & 0xFF
            let isDash = ((v ^ 62) - 1) >> 8 & 0xFF
            let isUnderscore = ((v ^ 63) - 1) >> 8 & 0xFF
            let result =
                (isUpper & (v + 65)) | (isLower & (v + 71)) | (isDigit & (v - 4)) | (isDash & 45) | (isUnderscore & 95)
            return UInt8(truncatingIfNeeded: result)
        }

        /// The 6-bit value of a base64url character, or a value with bit 6 set for any other
        /// byte; computed with masks, never a table or a branch on the byte.
        private static func value(_ character: UInt8) -> UInt8 {
            let c = Int16(character)
            let inUpper = ((64 - c) >> 8) & ((c - 91) >> 8) & 0xFF
            let inLower = ((96 - c) >> 8) & ((c - 123) >> 8) & 0xFF
            let inDigit = ((47 - c) >> 8) & ((c - 58) >> 8) & 0xFF
            let isDash = ((c ^ 45) - 1) >> 8 & 0xFF
            let isUnderscore = ((c ^ 95) - 1) >> 8 & 0xFF
            let known = inUpper | inLower | inDigit | isDash | isUnderscore
            let result =
                (inUpper & (c - 65)) | (inLower & (c - 71)) | (inDigit & (c + 4)) | (isDash & 62)
                | (isUnderscore & 63) | (~known & 0x40)
            return UInt8(truncatingIfNeeded: result)
        }
    }
#endif
