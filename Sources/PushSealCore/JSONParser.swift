internal import PushSealPrimitives

/// A strict RFC 8259 JSON parser over bytes.
///
/// It refuses what a lenient parser would guess at: invalid UTF-8, lone surrogates, unescaped
/// control characters, duplicate member names (the same UTF-8 bytes), trailing bytes, and nesting deeper than
/// ``maximumDepth`` (so hostile input cannot exhaust the stack). Errors name the byte offset.
///
/// Everything is checked during the parse, which records the values on a tape instead of
/// building them: the objects it returns make their strings when they are read.
public struct JSONParser: ~Copyable {
    /// Nesting deeper than this is refused.
    public static let maximumDepth = 64

    /// Objects with at most this many members check for duplicate names by comparison; larger
    /// ones use a set (so that hostile input cannot make the check quadratic).
    private static let linearDuplicateCheckLimit = 16

    /// The input, valid for the duration of one `parse` call.
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var depth = 0
    private var tape: GrowableBuffer<JSONTapeEntry>
    /// The decoded bytes of the strings with escapes; wiped after the parse.
    private var unescaped: [UInt8] = []

    /// Parses `bytes` as one JSON value, with nothing but white space around it.
    public static func parse(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
        let result: Result<JSONValue, JSONParseError>? = bytes.withContiguousStorageIfAvailable { parse(buffer: $0) }
        if let result { return try result.get() }
        var copy = Array(bytes)
        defer { wipe(&copy) }
        return try copy.withUnsafeBufferPointer { parse(buffer: $0) }.get()
    }

    /// Parses `text` as one JSON value.
    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(text.utf8)
    }

    private static func parse(buffer: UnsafeBufferPointer<UInt8>) -> Result<JSONValue, JSONParseError> {
        guard buffer.count < Int32.max else {
            return .failure(JSONParseError(message: "input larger than 2 GiB", offset: 0))
        }
        var parser = JSONParser(bytes: buffer)
        defer { wipe(&parser.unescaped) }
        do throws(JSONParseError) {
            parser.skipWhitespace()
            try parser.parseValue()
            parser.skipWhitespace()
            guard parser.position == parser.bytes.count else {
                throw parser.error("unexpected data after the JSON value")
            }
        } catch {
            return .failure(error)
        }
        let document = JSONDocument(text: buffer, unescaped: parser.unescaped, tape: parser.tape.array())
        return .success(document.value(at: 0))
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        tape = GrowableBuffer(capacity: bytes.count / 8 + 4)
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

    /// Parses one value onto the tape.
    private mutating func parseValue() throws(JSONParseError) {
        guard position < bytes.count else { throw error("unexpected end of input") }
        switch bytes[position] {
        case UInt8(ascii: "{"): try parseObject()
        case UInt8(ascii: "["): try parseArray()
        case UInt8(ascii: "\""): tape.append(try parseString())
        case UInt8(ascii: "t"): try parseLiteral("true", .true)
        case UInt8(ascii: "f"): try parseLiteral("false", .false)
        case UInt8(ascii: "n"): try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try parseNumber()
        default: throw error("unexpected character")
        }
    }

    private mutating func parseLiteral(_ literal: StaticString, _ kind: JSONTapeEntry.Kind) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        guard position + count <= bytes.count,
            bytes[position..<position + count].elementsEqual(
                UnsafeBufferPointer(start: literal.utf8Start, count: count))
        else { throw error("invalid literal") }
        tape.append(JSONTapeEntry(kind, start: position, count: count, index: tape.count))
        position += count
    }

    /// Opens an object or an array: its entry goes on the tape now and is closed by `close`.
    private mutating func enterContainer(_ kind: JSONTapeEntry.Kind) throws(JSONParseError) -> Int {
        depth += 1
        guard depth <= Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth) levels") }
        position += 1
        tape.append(JSONTapeEntry(kind, start: position - 1, count: 0, index: tape.count))
        return tape.count - 1
    }

    private mutating func close(_ container: Int, count: Int) {
        position += 1
        depth -= 1
        tape[container].close(count: count, end: tape.count)
    }

    private mutating func parseObject() throws(JSONParseError) {
        let object = try enterContainer(.object)
        var count = 0
        var names: Set<[UInt8]> = []
        // One bit per name seen, chosen by its length and its first and last bytes: a name whose
        // bit is not set yet cannot be a duplicate, and most names skip the comparisons.
        var seen: UInt64 = 0
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            close(object, count: 0)
            return
        }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw error("expected a member name")
            }
            let nameOffset = position
            let name = try parseString()
            let bit = summaryBit(of: name)
            if count >= Self.linearDuplicateCheckLimit || seen & bit != 0,
                isDuplicate(name, inObjectAt: object, memberCount: count, names: &names)
            {
                let text = withBytes(of: name) { String(decoding: $0, as: UTF8.self) }
                throw JSONParseError(message: "duplicate member name \"\(text)\"", offset: nameOffset)
            }
            seen |= bit
            tape.append(name)
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw error("expected ':'") }
            position += 1
            skipWhitespace()
            try parseValue()
            count += 1
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of input in an object") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
            } else if bytes[position] == UInt8(ascii: "}") {
                close(object, count: count)
                return
            } else {
                throw error("expected ',' or '}'")
            }
        }
    }

    private mutating func parseArray() throws(JSONParseError) {
        let array = try enterContainer(.array)
        var count = 0
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            close(array, count: 0)
            return
        }
        while true {
            skipWhitespace()
            try parseValue()
            count += 1
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of input in an array") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
            } else if bytes[position] == UInt8(ascii: "]") {
                close(array, count: count)
                return
            } else {
                throw error("expected ',' or ']'")
            }
        }
    }
    private mutating func parseNumber() throws(JSONParseError) {
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
        tape.append(JSONTapeEntry(.number, start: start, count: position - start, index: tape.count))
    }

    /// Parses a string; its entry is for the caller to put on the tape. A string without escapes
    /// is read here, inlined where strings are expected; the others by `parseEscapedString`.
    @inline(__always)
    private mutating func parseString() throws(JSONParseError) -> JSONTapeEntry {
        // Fast path: no escape before the closing quote, so the string is a slice of the input;
        // pure ASCII needs no UTF-8 validation.
        let start = position + 1
        var index = start
        var highBits: UInt8 = 0
        skipPlainWords(from: &index, highBits: &highBits)
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                position = index + 1
                guard highBits & 0x80 == 0 || Self.isValidUTF8(bytes[start..<index]) else {
                    throw JSONParseError(message: "invalid UTF-8 in a string", offset: start)
                }
                return JSONTapeEntry(.string, start: start, count: index - start, index: tape.count)
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            highBits |= byte
            index += 1
        }
        return try parseEscapedString(from: start)
    }

    /// Parses the string whose first byte is at `start`, and which has an escape (or is
    /// malformed). The decoded bytes go to `unescaped`, which never needs more room than the
    /// input (an escape is longer than what it decodes to), so it is never moved and leaves no
    /// stray copy behind when it is wiped.
    @inline(never)
    private mutating func parseEscapedString(from start: Int) throws(JSONParseError) -> JSONTapeEntry {
        if unescaped.capacity == 0 { unescaped.reserveCapacity(bytes.count) }
        position = start
        let decodedStart = unescaped.count
        var runStart = position
        while true {
            guard position < bytes.count else { throw error("unterminated string") }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                unescaped.append(contentsOf: bytes[runStart..<position])
                position += 1
                break
            }
            if byte < 0x20 { throw error("unescaped control character in a string") }
            if byte == UInt8(ascii: "\\") {
                unescaped.append(contentsOf: bytes[runStart..<position])
                try parseEscape()
                runStart = position
                continue
            }
            position += 1
        }
        guard Self.isValidUTF8(unescaped[decodedStart...]) else { throw error("invalid UTF-8 in a string") }
        return JSONTapeEntry(
            .escapedString, start: decodedStart, count: unescaped.count - decodedStart, index: tape.count)
    }

    /// Moves `index` eight bytes at a time past bytes that cannot end a plain string (no quote, no
    /// backslash, no control character), ORing them into `highBits`, and stops on the first byte
    /// that can, or where fewer than eight bytes are left.
    ///
    /// A word has a byte equal to `c` when `x = word ^ c…c` has a zero byte, which
    /// `(x - 0x01…01) & ~x & 0x80…80` flags; `(word - 0x20…20) & ~word & 0x80…80` flags the bytes
    /// below 0x20 in the same way. A borrow can flag a byte above a real one, never below it, so the
    /// lowest flag (read little-endian: the first byte in memory) is exact.
    @inline(__always)
    private func skipPlainWords(from index: inout Int, highBits: inout UInt8) {
        guard let base = bytes.baseAddress else { return }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var passed: UInt64 = 0
        while index + 8 <= bytes.count {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            let quote = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
            let backslash = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
            let found =
                (((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word))
                & highs
            if found != 0 {
                let before = found.trailingZeroBitCount / 8
                passed |= word & ((1 << (before * 8)) &- 1)
                index += before
                break
            }
            passed |= word
            index += 8
        }
        if passed & highs != 0 { highBits |= 0x80 }
    }

    /// True when `bytes` are well-formed UTF-8 (no overlong form, surrogate or truncated sequence).
    private static func isValidUTF8(_ bytes: some Collection<UInt8>) -> Bool {
        !transcode(bytes.makeIterator(), from: UTF8.self, to: UTF8.self, stoppingOnError: true) { _ in }
    }

    /// Decodes the escape at `position` onto `unescaped`.
    private mutating func parseEscape() throws(JSONParseError) {
        position += 1
        guard position < bytes.count else { throw error("unterminated escape") }
        let escaped = bytes[position]
        position += 1
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): unescaped.append(escaped)
        case UInt8(ascii: "b"): unescaped.append(0x08)
        case UInt8(ascii: "f"): unescaped.append(0x0C)
        case UInt8(ascii: "n"): unescaped.append(0x0A)
        case UInt8(ascii: "r"): unescaped.append(0x0D)
        case UInt8(ascii: "t"): unescaped.append(0x09)
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
            UTF8.encode(unicode) { unescaped.append($0) }
        default:
            throw error("invalid escape")
        }
    }

    /// A bit of 64 that names with the same bytes share: chosen by the length and the first and
    /// last bytes.
    @inline(__always)
    private func summaryBit(of name: JSONTapeEntry) -> UInt64 {
        withBytes(of: name) { bytes in
            guard let first = bytes.first, let last = bytes.last else { return 1 }
            return 1 << ((bytes.count &* 31 &+ Int(first) &* 7 &+ Int(last)) & 63)
        }
    }

    /// True when the member name `name` is already among the first `memberCount` members of the
    /// object at `object`. `names` is the set the check moves to for large objects.
    private func isDuplicate(
        _ name: JSONTapeEntry, inObjectAt object: Int, memberCount: Int, names: inout Set<[UInt8]>
    ) -> Bool {
        if memberCount < Self.linearDuplicateCheckLimit {
            var member = object + 1
            for _ in 0..<memberCount {
                let same =
                    tape[member].count == name.count
                    && withBytes(of: tape[member]) { earlier in withBytes(of: name) { earlier.hasSameBytes(as: $0) } }
                if same { return true }
                member = tape[member + 1].end
            }
            return false
        }
        if names.isEmpty {
            var member = object + 1
            for _ in 0..<memberCount {
                names.insert(withBytes(of: tape[member]) { Array($0) })
                member = tape[member + 1].end
            }
        }
        return !names.insert(withBytes(of: name) { Array($0) }).inserted
    }

    /// Calls `body` with the UTF-8 of a string parsed so far (escapes decoded).
    private func withBytes<Result>(of entry: JSONTapeEntry, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if entry.kind == .escapedString {
            return unescaped.withUnsafeBufferPointer {
                body(UnsafeBufferPointer(rebasing: $0[entry.start..<entry.start + entry.count]))
            }
        }
        return body(UnsafeBufferPointer(rebasing: bytes[entry.start..<entry.start + entry.count]))
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

/// Why bytes are not JSON, and where.
public struct JSONParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public let message: String
    /// The byte offset, from 0, where it was found.
    public let offset: Int

    /// A readable form that never shows key material.
    public var description: String { "\(message) at byte \(offset)" }
}
