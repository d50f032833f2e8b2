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

    /// The value as a double.
    public var doubleValue: Double? { Double(literal) }

    /// The value as an integer, when the literal is one (no fraction, no exponent).
    public var intValue: Int? { Int(literal) }

    /// A readable form that never shows key material.
    public var description: String { literal }
}

/// A JSON object: members in their original order, each name once.
public struct JSONObject: Sendable, Hashable, Sequence {
    /// The members, in order.
    public private(set) var members: [(name: String, value: JSONValue)]

    /// An empty object.
    public init() {
        members = []
    }

    /// An object with these members, which must have distinct names.
    public init(_ members: [(String, JSONValue)]) {
        self.members = members.map { (name: $0.0, value: $0.1) }
    }

    /// An object over members already in their final form (the parser's path).
    init(members: [(name: String, value: JSONValue)]) {
        self.members = members
    }

    /// The value of the member `name`, if present. Names match by their UTF-8 bytes, never by
    /// canonical equivalence (see ``ExactText``).
    public subscript(name: String) -> JSONValue? {
        get { members.first { $0.name.isExactly(name) }?.value }
        set {
            let index = members.firstIndex { $0.name.isExactly(name) }
            switch (index, newValue) {
            case (let index?, let value?): members[index].value = value
            case (let index?, nil): members.remove(at: index)
            case (nil, let value?): members.append((name: name, value: value))
            case (nil, nil): break
            }
        }
    }

    /// The number of members.
    public var count: Int { members.count }

    /// The name of the first member, in document order, that is not one of `known` (byte for
    /// byte): what a format that refuses unknown members reports.
    package func firstMember(notIn known: [String]) -> String? {
        members.first { member in !known.contains { $0.isExactly(member.name) } }?.name
    }

    /// Iterates the members in order.
    public func makeIterator() -> IndexingIterator<[(name: String, value: JSONValue)]> {
        members.makeIterator()
    }

    /// Equality as documented on the type.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count
            && zip(lhs.members, rhs.members).allSatisfy { $0.name.isExactly($1.name) && $0.value == $1.value }
    }

    /// Hashes what equality compares.
    public func hash(into hasher: inout Hasher) {
        for member in members {
            hasher.combine(member.name)
            hasher.combine(member.value)
        }
    }
}
