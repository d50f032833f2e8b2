/// A JSON object: members in their original order, each name once.
///
/// An object from ``JSONParser`` reads its members from the parsed text when they are asked for,
/// so that what nobody reads costs no `String`; one built in code holds its members. The two
/// behave the same: a value, equal when their members are.
public struct JSONObject: Sendable, Hashable, Sequence {
    private enum Storage {
        case members([(name: String, value: JSONValue)])
        case parsed(JSONDocument, index: Int)
    }

    private var storage: Storage

    /// An empty object.
    public init() {
        storage = .members([])
    }

    /// An object with these members, which must have distinct names.
    public init(_ members: [(String, JSONValue)]) {
        storage = .members(members.map { (name: $0.0, value: $0.1) })
    }

    /// The object at tape index `index` of `document`.
    init(document: JSONDocument, index: Int) {
        storage = .parsed(document, index: index)
    }

    /// The members, in order.
    public var members: [(name: String, value: JSONValue)] {
        switch storage {
        case .members(let members): members
        case .parsed(let document, let index): document.members(ofObjectAt: index)
        }
    }

    /// The document and tape index of an object that has not been changed since it was parsed.
    var parsed: (document: JSONDocument, index: Int)? {
        if case .parsed(let document, let index) = storage { return (document, index) }
        return nil
    }

    /// The value of the member `name`, if present. Names match by their UTF-8 bytes, never by
    /// canonical equivalence (see ``ExactText``).
    public subscript(name: String) -> JSONValue? {
        get {
            switch storage {
            case .members(let members):
                return members.first { $0.name.isExactly(name) }?.value
            case .parsed(let document, let index):
                var name = name
                return name.withUTF8 { document.member(named: $0, inObjectAt: index) }
            }
        }
        set {
            var members = self.members
            storage = .members([])
            let index = members.firstIndex { $0.name.isExactly(name) }
            switch (index, newValue) {
            case (let index?, let value?): members[index].value = value
            case (let index?, nil): members.remove(at: index)
            case (nil, let value?): members.append((name: name, value: value))
            case (nil, nil): break
            }
            storage = .members(members)
        }
    }

    /// The number of members.
    public var count: Int {
        switch storage {
        case .members(let members): members.count
        case .parsed(let document, let index): document.tape[index].count
        }
    }

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
        if let left = lhs.parsed, let right = rhs.parsed, left.document === right.document, left.index == right.index {
            return true
        }
        let left = lhs.members
        let right = rhs.members
        return left.count == right.count
            && zip(left, right).allSatisfy { $0.name.isExactly($1.name) && $0.value == $1.value }
    }

    /// Hashes what equality compares.
    public func hash(into hasher: inout Hasher) {
        for member in members {
            hasher.combine(member.name)
            hasher.combine(member.value)
        }
    }
}
