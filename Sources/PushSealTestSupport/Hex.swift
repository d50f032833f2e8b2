/// Hexadecimal, as test vectors write bytes.
package enum Hex {
    /// Decodes lowercase or uppercase hex; traps on malformed vector data, which is a bug in the vector file.
    package static func decode(_ text: String) -> [UInt8] {
        let digits = Array(text.utf8)
        precondition(digits.count.isMultiple(of: 2), "odd-length hex in a vector: \(text)")
        return stride(from: 0, to: digits.count, by: 2).map { index in
            UInt8(nibble(digits[index]) << 4 | nibble(digits[index + 1]))
        }
    }

    /// Encodes as lowercase hex.
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let alphabet = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(alphabet[Int(byte >> 4)])
            out.append(alphabet[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func nibble(_ digit: UInt8) -> Int {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(digit - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(digit - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(digit - UInt8(ascii: "A") + 10)
        default: preconditionFailure("not a hex digit in a vector: \(digit)")
        }
    }
}
