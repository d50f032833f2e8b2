/// One value of a ``JSONDocument``.
struct JSONTapeEntry {
    /// What the value is, and for a string where its bytes are.
    enum Kind: UInt8 {
        case null, `true`, `false`, number
        /// A string with no escape: its bytes lie in the text.
        case string
        /// A string with escapes: its decoded bytes lie among the decoded bytes (the parser's
        /// `unescaped`, then the document's storage after the text).
        case escapedString
        case array, object
    }

    let kind: Kind
    private let storedStart: Int32
    private var storedCount: Int32
    private var storedEnd: Int32

    /// A scalar at tape index `index`: bytes `start..<start + count` of its source.
    init(_ kind: Kind, start: Int, count: Int, index: Int) {
        self.kind = kind
        storedStart = Int32(truncatingIfNeeded: start)
        storedCount = Int32(truncatingIfNeeded: count)
        storedEnd = Int32(truncatingIfNeeded: index + 1)
    }

    /// Where a string's or a number's bytes start in their source.
    var start: Int { Int(storedStart) }
    /// A string's or a number's byte count; a container's member or element count.
    var count: Int { Int(storedCount) }
    /// The tape index just past this value and everything in it.
    var end: Int { Int(storedEnd) }

    /// Closes a container: it holds `count` members or elements, and its last descendant is
    /// just before tape index `end`.
    mutating func close(count: Int, end: Int) {
        storedCount = Int32(truncatingIfNeeded: count)
        storedEnd = Int32(truncatingIfNeeded: end)
    }
}
