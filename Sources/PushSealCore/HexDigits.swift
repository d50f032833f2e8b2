/// Bytes as hexadecimal digits, for every module that writes them: JSON's `\u00XX`, UUIDs,
/// percent-encoding, token ids.
package enum HexDigits {
    private static let lower = Array("0123456789abcdef".utf8)
    private static let upper = Array("0123456789ABCDEF".utf8)

    /// Appends `byte` as two digits, lower case unless `uppercase`.
    package static func append(_ byte: UInt8, uppercase: Bool = false, to output: inout [UInt8]) {
        let digits = uppercase ? upper : lower
        output.append(digits[Int(byte >> 4)])
        output.append(digits[Int(byte & 0x0F)])
    }

    /// `bytes` as lower-case hexadecimal text.
    package static func lowercase(_ bytes: some Sequence<UInt8>) -> String {
        var text: [UInt8] = []
        for byte in bytes { append(byte, to: &text) }
        return String(decoding: text, as: UTF8.self)
    }
}
