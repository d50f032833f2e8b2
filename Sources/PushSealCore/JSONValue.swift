/// A JSON value that keeps what a round trip must keep: the order of object members and the
/// exact text of numbers, so that `userInfo` is the decrypted payload exactly.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, kept as its literal text.
    case number(JSONNumber)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, its members in their original order.
    case object(JSONObject)

    /// The object, if this is one.
    public var objectValue: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// The string, if this is one.
    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// The number, if this is one.
    public var numberValue: JSONNumber? {
        if case .number(let number) = self { return number }
        return nil
    }

    /// The JSON type's name, for error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// A JSON number as written: its literal text is what is serialised back.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The literal, e.g. `3`, `-0.5`, `1e3`.
    public let literal: String

    /// Wraps a literal that the parser has already checked against the JSON grammar.
    init(validatedLiteral literal: String) {
        self.literal = literal
    }

    /// A number written from an integer.
    public init(_ value: Int) {
        literal = String(value)
    }

    /// A number written from a double, as Swift writes it (`0.25`, `1e-05`: both JSON); nil for
    /// an infinity or a NaN, which JSON cannot write.
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        literal = "\(value)"
    }

    /// The value as a double.
    public var doubleValue: Double? { Double(literal) }

    /// The value as an integer, when the literal is one (no fraction, no exponent).
    public var intValue: Int? { Int(literal) }

    /// A readable form that never shows key material.
    public var description: String { literal }
}
