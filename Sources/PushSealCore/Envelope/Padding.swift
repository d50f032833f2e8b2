/// ISO/IEC 7816-4 padding (`content || 0x80 || 0x00…`), as libsodium's `sodium_pad`.
public enum Padding {
    /// The default block: padded plaintexts are a multiple of 128 bytes.
    public static let defaultBlock = 128

    /// The padded length for `contentCount` bytes: rounded up to a multiple of `block`, but never
    /// past `maximum`; nil when even the minimal padding (one byte) would exceed `maximum`.
    public static func paddedLength(contentCount: Int, block: Int, maximum: Int) -> Int? {
        let minimal = contentCount + 1
        guard minimal <= maximum else { return nil }
        let block = max(block, 1)
        let rounded = (minimal + block - 1) / block * block
        return min(rounded, maximum)
    }

    /// `content || 0x80 || 0x00 * (length - content.count - 1)`; `length` must exceed `content.count`.
    public static func pad(_ content: [UInt8], to length: Int) -> [UInt8] {
        precondition(length > content.count, "padded length must leave room for the 0x80 marker")
        var padded = content
        padded.reserveCapacity(length)
        padded.append(0x80)
        padded.append(contentsOf: repeatElement(0, count: length - content.count - 1))
        return padded
    }

    /// The length of the content inside `padded`: trailing zero bytes and the `0x80` before them
    /// are padding; nil when there is no such marker.
    public static func contentLength(_ padded: [UInt8]) -> Int? {
        guard let marker = padded.lastIndex(where: { $0 != 0 }), padded[marker] == 0x80 else { return nil }
        return marker
    }
}
