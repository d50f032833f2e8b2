/// The text form of a UUID's 16 bytes: lower-case hex digits in groups of 8, 4, 4, 4 and 12.
enum UUIDText {
    /// `bytes` (16 of them) as `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`.
    static func format(_ bytes: [UInt8]) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(index) { text.append(UInt8(ascii: "-")) }
            HexDigits.append(byte, to: &text)
        }
        return String(decoding: text, as: UTF8.self)
    }
}
