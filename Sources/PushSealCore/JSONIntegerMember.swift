/// An integer member of a descriptor or a reference, read as media-v1.md's "Descriptor" says: a
/// JSON number written without a fraction or an exponent. `3.0` and `3e0` are no integers, `-0`
/// is 0, and an integer beyond 64 bits is over every limit, or under every minimum.
enum JSONIntegerMember {
    /// Not a number, or a number with a fraction or an exponent.
    case notInteger
    /// An integer this machine holds (`-0` is 0; a negative one beyond 64 bits is `Int.min`).
    case value(Int)
    /// A positive integer of 2⁶³ or more: over every limit.
    case overflow

    /// Reads `value`.
    init(_ value: JSONValue?) {
        guard let literal = value?.numberValue?.literal,
            !literal.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") })
        else {
            self = .notInteger
            return
        }
        if let integer = Int(literal) {
            self = .value(integer)
        } else {
            // Beyond 64 bits: a negative one is below every minimum, a positive one over every limit.
            self = literal.hasPrefix("-") ? .value(Int.min) : .overflow
        }
    }
}
