/// Where a value is in a JSON document, as error messages name it: an RFC 9535 JSONPath query
/// that selects exactly that value. A member whose name is an ASCII letter or `_` followed by
/// ASCII letters, digits and `_` is written in the dot shorthand (`$.aps.alert`); any other name
/// in brackets, single-quoted with RFC 9535's normalized-path escapes (`$.aps['thread-id']`,
/// `$['a b']`, `$['']`, `$['it\'s']`); an array element by its index from 0 (`$.links[0]`).
/// So every path reads back to one place, whatever the names hold.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    /// The path, as written.
    public let description: String

    private init(_ description: String) {
        self.description = description
    }

    /// `$`, the whole document.
    public static let root = JSONPath("$")

    /// The member `name` of the object at this path.
    public func member(_ name: String) -> JSONPath {
        JSONPath(description + (Self.isShorthand(name) ? "." + name : "['" + Self.escaped(name) + "']"))
    }

    /// The element at `index` of the array at this path.
    public func element(_ index: Int) -> JSONPath {
        JSONPath(description + "[\(index)]")
    }

    /// RFC 9535's member-name shorthand, ASCII only: a letter or `_`, then letters, digits, `_`.
    private static func isShorthand(_ name: String) -> Bool {
        guard let first = name.utf8.first, isLetter(first) || first == UInt8(ascii: "_") else { return false }
        return name.utf8.allSatisfy { isLetter($0) || $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0) }
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (0x61...0x7A).contains(byte | 0x20) }

    /// RFC 9535, section 2.7: `'` and `\` escaped, the C0 controls as `\b \f \n \r \t` or
    /// `\u00XX` in lower-case hex; everything else as it is.
    private static func escaped(_ name: String) -> String {
        var result = ""
        for scalar in name.unicodeScalars {
            switch scalar {
            case "'": result += "\\'"
            case "\\": result += "\\\\"
            case "\u{08}": result += "\\b"
            case "\u{0C}": result += "\\f"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u00" + (hex.count == 1 ? "0" + hex : hex)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
