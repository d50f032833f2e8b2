internal import CSodium

/// Base64url without padding (RFC 4648 §5), through libsodium's constant-time codec.
///
/// Decoding is strict: padding, white space, characters outside the URL-safe alphabet and
/// non-zero trailing bits are all refused, so every byte string has exactly one encoding.
package enum Base64URL {
    private static let variant = sodium_base64_VARIANT_URLSAFE_NO_PADDING

    /// The encoded length of `byteCount` bytes.
    package static func encodedCount(_ byteCount: Int) -> Int {
        (byteCount * 4 + 2) / 3
    }

    /// Appends the encoding of `bytes` to `output` as ASCII.
    package static func encode(_ bytes: some ContiguousBytes, into output: inout [UInt8]) {
        Sodium.ensureInitialised()
        bytes.withNonNullBytes { input, count in
            // libsodium writes a terminating NUL, hence one more byte, not copied out.
            var encoded = [CChar](repeating: 0, count: encodedCount(count) + 1)
            _ = sodium_bin2base64(&encoded, encoded.count, input, count, variant)
            output.append(contentsOf: encoded.dropLast().lazy.map { UInt8(bitPattern: $0) })
        }
    }

    /// The encoding of `bytes` as a string.
    package static func encode(_ bytes: some ContiguousBytes) -> String {
        var output: [UInt8] = []
        encode(bytes, into: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes `text`, or returns nil when it is not canonical unpadded base64url.
    package static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        let ascii = Array(text)
        var output = [UInt8](repeating: 0, count: ascii.count * 3 / 4 + 1)
        guard let length = decode(ascii, into: &output) else { return nil }
        output.removeSubrange(length...)
        return output
    }

    /// Decodes `text`.
    package static func decode(_ text: String) -> [UInt8]? {
        decode(text.utf8)
    }

    /// Decodes `text` straight into secret storage, so no plain copy of the key is left behind.
    package static func decodeSecret(_ text: String) -> SecretBytes? {
        let ascii = Array(text.utf8)
        var length = 0
        var valid = true
        let capacity = ascii.count * 3 / 4 + 1
        let scratch = SecretBytes(count: capacity) { (target: UnsafeMutablePointer<UInt8>) in
            var decodedLength = 0
            valid =
                ascii.withNonNullBytes { input, count in
                    input.withMemoryRebound(to: CChar.self, capacity: max(count, 1)) { text in
                        sodium_base642bin(target, capacity, text, count, nil, &decodedLength, nil, variant)
                    }
                } == 0
            length = decodedLength
        }
        guard valid else { return nil }
        return scratch.withUnsafeBytes { SecretBytes(copying: $0.prefix(length)) }
    }

    private static func decode(_ ascii: [UInt8], into output: inout [UInt8]) -> Int? {
        Sodium.ensureInitialised()
        var length = 0
        let capacity = output.count
        let status = ascii.withNonNullBytes { input, count in
            input.withMemoryRebound(to: CChar.self, capacity: max(count, 1)) { text in
                sodium_base642bin(&output, capacity, text, count, nil, &length, nil, variant)
            }
        }
        return status == 0 ? length : nil
    }
}
