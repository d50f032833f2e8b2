/// A strict RFC 8259 JSON parser over bytes.
///
/// It refuses what a lenient parser would guess at: invalid UTF-8, lone surrogates, unescaped
/// control characters, duplicate member names (the same UTF-8 bytes), trailing bytes, and nesting deeper than
/// ``maximumDepth`` (so hostile input cannot exhaust the stack). Errors name the byte offset.
public struct JSONParser {
    /// Nesting deeper than this is refused.
    public static let maximumDepth = 64

    /// Objects with at most this many members check for duplicate names by comparison; larger
    /// ones use a set (so that hostile input cannot make the check quadratic).
    private static let linearDuplicateCheckLimit = 16

    /// The input, valid for the duration of one `parse` call.
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var depth = 0

    /// Parses `bytes` as one JSON value, with nothing but white space around it.
    public static func parse(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
        let result: Result<JSONValue, JSONParseError>? = bytes.withContiguousStorageIfAvailable { parse(buffer: $0) }
        if let result { return try result.get() }
        let copy = Array(bytes)
        return try copy.withUnsafeBufferPointer { parse(buffer: $0) }.get()
    }

    /// Parses `text` as one JSON value.
    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        var text = text
        return try text.withUTF8 { parse(buffer: $0) }.get()
    }

    private static func parse(buffer: UnsafeBufferPointer<UInt8>) -> Result<JSONValue, JSONParseError> {
        var parser = JSONParser(bytes: buffer)
        do throws(JSONParseError) {
            parser.skipWhitespace()
            let value = try parser.parseValue()
            parser.skipWhitespace()
            guard parser.position == parser.bytes.count else {
                throw parser.error("unexpected data after the JSON value")
            }
            return .success(value)
        } catch {
            return .failure(error)
        }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    private func error(_ message: String) -> JSONParseError {
        JSONParseError(message: message, offset: position)
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard position < bytes.count else { throw error("unexpected end of input") }
        switch bytes[position] {
        case UInt8(ascii: "{"):
            var noSiblings: [SiblingName]? = nil
            return .object(try parseObject(siblingNames: &noSiblings))
        case UInt8(ascii: "["): return .array(try parseArray())
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected character")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        guard position + count <= bytes.count,
            bytes[position..<position + count].elementsEqual(
                UnsafeBufferPointer(start: literal.utf8Start, count: count))
        else { throw error("invalid literal") }
        position += count
    }

    private mutating func enterContainer() throws(JSONParseError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth) levels") }
        position += 1
    }

    /// Parses an object. `siblingNames`, when given, holds the member names of the previous
    /// object in the same array and receives this object's: arrays of objects repeat their member
    /// names, and a name whose bytes match the sibling's at the same index reuses its text.
    private mutating func parseObject(siblingNames: inout [SiblingName]?) throws(JSONParseError) -> JSONObject {
        try enterContainer()
        defer { depth -= 1 }
        var members: [(name: String, value: JSONValue)] = []
        members.reserveCapacity(8)
        var names: Set<ExactText> = []
        // True while every name so far matched the sibling's at its index: the sibling's names were
        // distinct, so a further match cannot be a duplicate.
        var matchesSibling = siblingNames != nil
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            siblingNames?.removeAll(keepingCapacity: true)
            return JSONObject(members: members)
        }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw error("expected a member name")
            }
            let nameOffset = position
            let name: String
            if matchesSibling, let sibling = siblingNames?[safe: members.count], matches(sibling, at: position + 1) {
                name = sibling.text
                position += sibling.count + 2
            } else {
                matchesSibling = false
                name = try parseString()
                let duplicate: Bool
                if members.count < Self.linearDuplicateCheckLimit {
                    duplicate = members.contains { $0.name.isExactly(name) }
                } else {
                    if names.isEmpty { names = Set(members.map { ExactText($0.name) }) }
                    duplicate = !names.insert(ExactText(name)).inserted
                }
                guard !duplicate else {
                    throw JSONParseError(message: "duplicate member name \"\(name)\"", offset: nameOffset)
                }
                siblingNames?.record(
                    SiblingName(text: name, start: nameOffset + 1, count: position - nameOffset - 2),
                    at: members.count)
            }
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw error("expected ':'") }
            position += 1
            skipWhitespace()
            members.append((name: name, value: try parseValue()))
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of input in an object") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
            } else if bytes[position] == UInt8(ascii: "}") {
                position += 1
                siblingNames?.removeSubrange(members.count...)
                return JSONObject(members: members)
            } else {
                throw error("expected ',' or '}'")
            }
        }
    }

    /// True when the input at `start` holds `sibling`'s bytes followed by the closing quote. The
    /// same bytes decode to the same text, escapes included.
    private func matches(_ sibling: SiblingName, at start: Int) -> Bool {
        let end = start + sibling.count
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else { return false }
        var offset = 0
        while offset < sibling.count {
            guard bytes[start + offset] == bytes[sibling.start + offset] else { return false }
            offset += 1
        }
        return true
    }

    private mutating func parseArray() throws(JSONParseError) -> [JSONValue] {
        try enterContainer()
        defer { depth -= 1 }
        var elements: [JSONValue] = []
        elements.reserveCapacity(8)
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return elements
        }
        var siblingNames: [SiblingName]? = []
        while true {
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "{") {
                elements.append(.object(try parseObject(siblingNames: &siblingNames)))
            } else {
                elements.append(try parseValue())
            }
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of input in an array") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
            } else if bytes[position] == UInt8(ascii: "]") {
                position += 1
                return elements
            } else {
                throw error("expected ',' or ']'")
            }
        }
    }

    private mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
        let start = position
        func digits() -> Int {
            let first = position
            while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") {
                position += 1
            }
            return position - first
        }
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count else { throw error("invalid number") }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else if digits() == 0 {
            throw error("invalid number")
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else { throw error("invalid number: no digit after '.'") }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard digits() > 0 else { throw error("invalid number: no digit in the exponent") }
        }
        return JSONNumber(
            validatedLiteral: String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self))
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        // Fast path: no escape before the closing quote, so the string is a slice of the input;
        // pure ASCII needs no UTF-8 validation.
        let start = position + 1
        var index = start
        var highBits: UInt8 = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                position = index + 1
                if highBits & 0x80 == 0 { return String(decoding: slice, as: UTF8.self) }
                guard let string = String(validating: slice, as: UTF8.self) else {
                    throw JSONParseError(message: "invalid UTF-8 in a string", offset: start)
                }
                return string
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            highBits |= byte
            index += 1
        }
        position = start
        var output: [UInt8] = []
        var runStart = position
        while true {
            guard position < bytes.count else { throw error("unterminated string") }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                output.append(contentsOf: bytes[runStart..<position])
                position += 1
                break
            }
            if byte < 0x20 { throw error("unescaped control character in a string") }
            if byte == UInt8(ascii: "\\") {
                output.append(contentsOf: bytes[runStart..<position])
                try parseEscape(into: &output)
                runStart = position
                continue
            }
            position += 1
        }
        guard let string = String(validating: output, as: UTF8.self) else {
            throw error("invalid UTF-8 in a string")
        }
        return string
    }

    private mutating func parseEscape(into output: inout [UInt8]) throws(JSONParseError) {
        position += 1
        guard position < bytes.count else { throw error("unterminated escape") }
        let escaped = bytes[position]
        position += 1
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(escaped)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHexQuad()
            if (0xD800...0xDBFF).contains(scalar) {
                guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "u")
                else { throw error("lone high surrogate") }
                position += 2
                let low = try parseHexQuad()
                guard (0xDC00...0xDFFF).contains(low) else { throw error("invalid low surrogate") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw error("lone low surrogate")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
            output.append(contentsOf: String(Character(unicode)).utf8)
        default:
            throw error("invalid escape")
        }
    }

    private mutating func parseHexQuad() throws(JSONParseError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var value: UInt32 = 0
        for byte in bytes[position..<position + 4] {
            let nibble: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid hex digit in a \\u escape")
            }
            value = value << 4 | UInt32(nibble)
        }
        position += 4
        return value
    }
}

/// A member name of the previous object in an array: its text, and where its bytes (between the
/// quotes, escapes as written) lie in the input.
private struct SiblingName {
    let text: String
    let start: Int
    let count: Int
}

extension [SiblingName] {
    /// The name at `index`, if there is one.
    fileprivate subscript(safe index: Int) -> SiblingName? {
        index < count ? self[index] : nil
    }

    /// Stores `name` at `index`, replacing the previous sibling's or appending.
    fileprivate mutating func record(_ name: SiblingName, at index: Int) {
        if index < count {
            self[index] = name
        } else {
            if isEmpty { reserveCapacity(8) }
            append(name)
        }
    }
}

/// Why bytes are not JSON, and where.
public struct JSONParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public let message: String
    /// The byte offset, from 0, where it was found.
    public let offset: Int

    /// A readable form that never shows key material.
    public var description: String { "\(message) at byte \(offset)" }
}
