internal import PushSealPrimitives

/// JSON text as ``JSONParser`` left it: the validated bytes, the decoded bytes of every string
/// written with escapes, and a tape of every value in document order.
///
/// A parse checks everything and creates no `String`: a ``JSONObject`` read from a document makes
/// the strings of the members it is asked for, when it is asked. An envelope's content is opened,
/// checked and handed on without paying for the text nobody reads, and a content written back
/// out (`userInfo`) is copied from the tape.
///
/// The document keeps its own copy of the text and of the decoded bytes, and wipes it when it is
/// released: a key file's or a decrypted content's bytes do not outlive their use in freed memory
/// (the strings made from them are Swift's, and are not wiped).
// @unchecked: the storage is written only by `init`, and by `deinit` when no other reference
// to the document exists.
final class JSONDocument: @unchecked Sendable {
    /// The JSON text, then the decoded UTF-8 of the strings written with escapes, one after another.
    private let storage: UnsafeMutableBufferPointer<UInt8>
    /// Where the decoded bytes start in `storage`.
    private let unescapedStart: Int
    /// Every value. An object's entry is followed by its members' (the name's entry, then the
    /// value's), an array's by its elements'.
    let tape: [JSONTapeEntry]

    /// A document that copies `text` and `unescaped`.
    init(text: UnsafeBufferPointer<UInt8>, unescaped: [UInt8], tape: [JSONTapeEntry]) {
        storage = .allocate(capacity: max(text.count + unescaped.count, 1))
        _ = storage.initialize(fromContentsOf: text)
        _ = UnsafeMutableBufferPointer(rebasing: storage[text.count...]).initialize(fromContentsOf: unescaped)
        unescapedStart = text.count
        self.tape = tape
    }

    deinit {
        wipe(UnsafeMutableRawBufferPointer(storage))
        storage.deallocate()
    }

    /// The value at `index`, its strings made now. An object stays in the document.
    func value(at index: Int) -> JSONValue {
        let entry = tape[index]
        switch entry.kind {
        case .null: return .null
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .number: return .number(JSONNumber(validatedLiteral: string(of: entry)))
        case .string, .escapedString: return .string(string(of: entry))
        case .object: return .object(JSONObject(document: self, index: index))
        case .array:
            var elements: [JSONValue] = []
            elements.reserveCapacity(entry.count)
            var element = index + 1
            for _ in 0..<entry.count {
                elements.append(value(at: element))
                element = tape[element].end
            }
            return .array(elements)
        }
    }

    /// The members of the object at `index`, in order.
    func members(ofObjectAt index: Int) -> [(name: String, value: JSONValue)] {
        var members: [(name: String, value: JSONValue)] = []
        members.reserveCapacity(tape[index].count)
        var name = index + 1
        for _ in 0..<tape[index].count {
            members.append((name: string(of: tape[name]), value: value(at: name + 1)))
            name = tape[name + 1].end
        }
        return members
    }

    /// The value of the member of the object at `index` whose name has the UTF-8 bytes `name`.
    func member(named name: UnsafeBufferPointer<UInt8>, inObjectAt index: Int) -> JSONValue? {
        var member = index + 1
        for _ in 0..<tape[index].count {
            if withBytes(of: tape[member], { $0.hasSameBytes(as: name) }) { return value(at: member + 1) }
            member = tape[member + 1].end
        }
        return nil
    }

    /// The text of a string or a number's literal.
    func string(of entry: JSONTapeEntry) -> String {
        withBytes(of: entry) { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the UTF-8 of a string (escapes decoded) or a number's literal.
    func withBytes<Result>(of entry: JSONTapeEntry, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        let start = entry.kind == .escapedString ? unescapedStart + entry.start : entry.start
        return body(UnsafeBufferPointer(rebasing: storage[start..<start + entry.count]))
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// True when both hold the same bytes; the lengths are compared first, since names mostly
    /// differ in length.
    func hasSameBytes(as other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard count == other.count else { return false }
        for index in 0..<count where self[index] != other[index] { return false }
        return true
    }
}
