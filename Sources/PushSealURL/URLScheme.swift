/// RFC 3986's scheme, `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )` then `:`: the one reading of a
/// scheme for the media URL rule and the payload contract's link rule.
package enum URLScheme {
    /// Whether `bytes` start with a scheme, of any length, and its colon.
    package static func begins(_ bytes: some Collection<UInt8>) -> Bool {
        guard let first = bytes.first, isLetter(first) else { return false }
        for byte in bytes.dropFirst() {
            if byte == UInt8(ascii: ":") { return true }
            guard isLetter(byte) || (0x30...0x39).contains(byte) || [0x2B, 0x2D, 0x2E].contains(byte) else {
                return false
            }
        }
        return false
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }
}
