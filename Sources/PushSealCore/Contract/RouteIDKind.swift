/// What a route's `id` may be, so that no push can smuggle an arbitrary string (a deep link, a
/// path) into navigation: only a verifiable resource id of the declared kind.
public enum RouteIDKind: String, Sendable, Hashable, CaseIterable {
    /// A canonical UUID string, `8-4-4-4-12` hexadecimal digits.
    case uuid
    /// A non-negative integer below 2⁶³: a JSON integer, or a string of decimal digits with no
    /// leading zero.
    case integer
    /// 1 to 64 characters from `A-Z a-z 0-9 _ -`, as a string.
    case token

    /// The id's canonical text when `value` is an id of this kind, else nil.
    public func canonicalID(_ value: JSONValue) -> String? {
        switch self {
        case .uuid:
            guard let text = value.stringValue, Self.isUUID(text) else { return nil }
            return text.lowercased()
        case .integer:
            let text: String
            switch value {
            case .number(let number): text = number.literal
            case .string(let string): text = string
            default: return nil
            }
            let digits = Array(text.utf8)
            guard (1...19).contains(digits.count), digits.allSatisfy(Self.isDigit),
                digits.count == 1 || digits[0] != UInt8(ascii: "0"), Int64(text) != nil
            else { return nil }
            return text
        case .token:
            guard let text = value.stringValue, (1...64).contains(text.utf8.count),
                text.utf8.allSatisfy({ Self.isDigit($0) || Self.isLetter($0) || $0 == 0x5F || $0 == 0x2D })
            else { return nil }
            return text
        }
    }

    /// The longest canonical id of the kind, in characters (all ASCII): 36 for a UUID, 19 for an
    /// integer below 2⁶³, 64 for a token.
    public var maximumLength: Int {
        switch self {
        case .uuid: 36
        case .integer: 19
        case .token: 64
        }
    }

    /// How errors describe the kind.
    public var description: String {
        switch self {
        case .uuid: "a UUID"
        case .integer: "a non-negative integer"
        case .token: "a token of 1 to 64 characters from A-Z a-z 0-9 _ -"
        }
    }

    static func isUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.count == 36
            && bytes.indices.allSatisfy { index in
                [8, 13, 18, 23].contains(index)
                    ? bytes[index] == UInt8(ascii: "-")
                    : isDigit(bytes[index]) || (0x61...0x66).contains(bytes[index] | 0x20)
            }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
    private static func isLetter(_ byte: UInt8) -> Bool { (0x61...0x7A).contains(byte | 0x20) }
}
