/// Base64url without padding (RFC 4648 §5).
///
/// Two codecs with one strict grammar: padding, white space, characters outside the URL-safe
/// alphabet and non-zero trailing bits are all refused, so every byte string has exactly one
/// encoding. Public data (envelopes, public keys) goes through a table-driven codec, which is
/// fast; key material goes through the backend's constant-time codec (``encodeSecret(_:)``,
/// ``decodeSecret(_:)``), whose timing does not depend on the bytes.
package enum Base64URL {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = UInt8(index) }
        return table
    }()

    /// Whether `byte` is a character of the alphabet (`A–Z a–z 0–9 - _`).
    package static func isAlphabetCharacter(_ byte: UInt8) -> Bool { values[Int(byte)] != 0xFF }

    /// The encoded length of `byteCount` bytes.
    package static func encodedCount(_ byteCount: Int) -> Int {
        (byteCount * 4 + 2) / 3
    }

    /// Appends the encoding of public `bytes` to `output` as ASCII.
    package static func encode(_ bytes: some ContiguousBytes, into output: inout [UInt8]) {
        bytes.withUnsafeBytes { input in
            let start = output.count
            let count = encodedCount(input.count)
            output.append(contentsOf: repeatElement(0, count: count))
            output.withUnsafeMutableBufferPointer { buffer in
                alphabet.withUnsafeBufferPointer { table in
                    var target = start
                    var index = 0
                    while index + 3 <= input.count {
                        let word = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                        buffer[target] = table[Int(word >> 18)]
                        buffer[target + 1] = table[Int(word >> 12 & 0x3F)]
                        buffer[target + 2] = table[Int(word >> 6 & 0x3F)]
                        buffer[target + 3] = table[Int(word & 0x3F)]
                        target += 4
                        index += 3
                    }
                    let remaining = input.count - index
                    if remaining > 0 {
                        let word = UInt32(input[index]) << 16 | (remaining == 2 ? UInt32(input[index + 1]) << 8 : 0)
                        buffer[target] = table[Int(word >> 18)]
                        buffer[target + 1] = table[Int(word >> 12 & 0x3F)]
                        if remaining == 2 { buffer[target + 2] = table[Int(word >> 6 & 0x3F)] }
                    }
                }
            }
        }
    }

    /// The encoding of public `bytes` as a string.
    package static func encode(_ bytes: some ContiguousBytes) -> String {
        var output: [UInt8] = []
        encode(bytes, into: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes public data, or returns nil when `text` is not canonical unpadded base64url.
    package static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        let count = text.count
        guard count % 4 != 1 else { return nil }
        var output = [UInt8](repeating: 0, count: count * 3 / 4)
        if let decoded = text.withContiguousStorageIfAvailable({ decode($0, into: &output) }) {
            return decoded ? output : nil
        }
        let copy = Array(text)
        return copy.withUnsafeBufferPointer { decode($0, into: &output) } ? output : nil
    }

    /// `text` without the trailing `=` padding some senders add (browsers once padded
    /// subscription keys; some Web Push senders pad header values): what ``decode(_:)`` takes.
    package static func unpadded(_ text: String) -> String {
        var text = Substring(text)
        while text.last == "=" { text = text.dropLast() }
        return String(text)
    }

    /// Decodes public data from a string.
    package static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode($0) }
    }

    private static func decode(_ input: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) -> Bool {
        values.withUnsafeBufferPointer { table in
            output.withUnsafeMutableBufferPointer { buffer in
                var index = 0
                var target = 0
                while index + 4 <= input.count {
                    let a = table[Int(input[index])], b = table[Int(input[index + 1])]
                    let c = table[Int(input[index + 2])], d = table[Int(input[index + 3])]
                    guard (a | b | c | d) & 0xC0 == 0 else { return false }
                    let word = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    buffer[target] = UInt8(word >> 16)
                    buffer[target + 1] = UInt8(word >> 8 & 0xFF)
                    buffer[target + 2] = UInt8(word & 0xFF)
                    index += 4
                    target += 3
                }
                let remaining = input.count - index
                guard remaining > 0 else { return true }
                let a = table[Int(input[index])], b = table[Int(input[index + 1])]
                let c = remaining == 3 ? table[Int(input[index + 2])] : 0
                guard (a | b | c) & 0xC0 == 0 else { return false }
                // Canonical: the bits past the last whole byte must be zero.
                guard remaining == 2 ? b & 0x0F == 0 : c & 0x03 == 0 else { return false }
                buffer[target] = a << 2 | b >> 4
                if remaining == 3 { buffer[target + 1] = (b & 0x0F) << 4 | c >> 2 }
                return true
            }
        }
    }
}
