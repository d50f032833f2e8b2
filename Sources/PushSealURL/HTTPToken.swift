/// RFC 9110's `token` (§5.6.2): the grammar of header names and of authentication parameters'
/// names, which a hostile peer's header is checked against byte by byte.
package enum HTTPToken {
    /// Whether `byte` is a `tchar`: a letter, a digit, or one of ``punctuation``.
    package static func isCharacter(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            || punctuation.contains(byte)
    }

    /// The punctuation a token may hold.
    private static let punctuation = Set("!#$%&'*+-.^_`|~".utf8)
}
