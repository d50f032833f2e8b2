/// Text compared by its UTF-8 bytes.
///
/// Swift's `String ==` (and so `switch`, `Set` and `Dictionary`) compares by Unicode canonical
/// equivalence: `"\u{212A}"` (KELVIN SIGN) equals `"K"`. For protocol text — JSON member names,
/// `kty`, `crv`, suite and role names — two spellings that are different bytes are different
/// names, so every such comparison goes through this type or `String.isExactly(_:)`.
///
/// ```swift
/// switch ExactText(keyType) {
/// case "OKP": …
/// default: …
/// }
/// ```
public struct ExactText: Sendable, Hashable {
    /// The text.
    public let text: String

    /// Wraps `text` for byte-exact matching.
    public init(_ text: String) {
        self.text = text
    }

    /// True when `pattern` and `value` are the same UTF-8 bytes (the `switch` case form).
    public static func ~= (pattern: String, value: ExactText) -> Bool {
        value.text.isExactly(pattern)
    }

    /// Equality of the UTF-8 bytes.
    public static func == (lhs: ExactText, rhs: ExactText) -> Bool {
        lhs.text.isExactly(rhs.text)
    }

    /// Hashes the UTF-8 bytes, consistently with equality.
    public func hash(into hasher: inout Hasher) {
        for byte in text.utf8 { hasher.combine(byte) }
        hasher.combine(text.utf8.count)
    }
}

extension String {
    /// True when `self` and `other` are the same UTF-8 bytes (not merely canonically equivalent).
    public func isExactly(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        let compared = utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { mine.elementsEqual($0) }
        }
        return (compared ?? nil) ?? utf8.elementsEqual(other.utf8)
    }
}
