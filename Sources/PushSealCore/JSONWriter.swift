/// Writes JSON compactly, straight into bytes.
///
/// Foundation's serialiser is slow on Linux and escapes `/`; this writer emits no white space,
/// escapes only what RFC 8259 requires, writes non-ASCII as UTF-8 and numbers as their literal.
public enum JSONWriter {
    /// The compact encoding of `value`.
    public static func bytes(_ value: JSONValue) -> [UInt8] {
        var sink = GrowableBuffer<UInt8>(capacity: 4096)
        write(value, into: &sink)
        return sink.array()
    }

    /// The compact encoding of `value` as a string.
    public static func string(_ value: JSONValue) -> String {
        String(decoding: bytes(value), as: UTF8.self)
    }

    /// Appends the compact encoding of `value` to `output`.
    public static func write(_ value: JSONValue, into output: inout [UInt8]) {
        var sink = GrowableBuffer<UInt8>(capacity: 1024)
        write(value, into: &sink)
        sink.append(to: &output)
    }

    /// Appends `string` as a quoted, escaped JSON string.
    public static func writeString(_ string: String, into output: inout [UInt8]) {
        var sink = GrowableBuffer<UInt8>(capacity: string.utf8.count + 16)
        writeString(string, into: &sink)
        sink.append(to: &output)
    }

    private static func write(_ value: JSONValue, into sink: inout GrowableBuffer<UInt8>) {
        switch value {
        case .null: sink.append("null")
        case .bool(let flag): sink.append(flag ? "true" : "false")
        case .number(let number): sink.append(utf8: number.literal)
        case .string(let string): writeString(string, into: &sink)
        case .array(let elements):
            sink.append(UInt8(ascii: "["))
            for index in elements.indices {
                if index > 0 { sink.append(UInt8(ascii: ",")) }
                write(elements[index], into: &sink)
            }
            sink.append(UInt8(ascii: "]"))
        case .object(let object):
            if let (document, index) = object.parsed {
                write(document, at: index, into: &sink)
                return
            }
            let members = object.members
            sink.append(UInt8(ascii: "{"))
            for index in members.indices {
                if index > 0 { sink.append(UInt8(ascii: ",")) }
                writeString(members[index].name, into: &sink)
                sink.append(UInt8(ascii: ":"))
                write(members[index].value, into: &sink)
            }
            sink.append(UInt8(ascii: "}"))
        }
    }

    /// Writes the value at tape index `index` of a parsed document, straight from its bytes: the
    /// same output as writing the values it stands for.
    private static func write(_ document: JSONDocument, at index: Int, into sink: inout GrowableBuffer<UInt8>) {
        let entry = document.tape[index]
        switch entry.kind {
        case .null: sink.append("null")
        case .true: sink.append("true")
        case .false: sink.append("false")
        case .number: document.withBytes(of: entry) { sink.append($0) }
        // A string without escapes holds no byte that needs one: a quote or a backslash would have
        // ended it or been an escape, and the parser refuses control characters.
        case .string:
            sink.append(UInt8(ascii: "\""))
            document.withBytes(of: entry) { sink.append($0) }
            sink.append(UInt8(ascii: "\""))
        case .escapedString: document.withBytes(of: entry) { writeString(utf8: $0, into: &sink) }
        case .array, .object:
            let isObject = entry.kind == .object
            sink.append(UInt8(ascii: isObject ? "{" : "["))
            var child = index + 1
            for position in 0..<entry.count {
                if position > 0 { sink.append(UInt8(ascii: ",")) }
                if isObject {
                    write(document, at: child, into: &sink)
                    sink.append(UInt8(ascii: ":"))
                    child += 1
                }
                write(document, at: child, into: &sink)
                child = document.tape[child].end
            }
            sink.append(UInt8(ascii: isObject ? "}" : "]"))
        }
    }

    private static func writeString(_ string: String, into sink: inout GrowableBuffer<UInt8>) {
        let written: Void? = string.utf8.withContiguousStorageIfAvailable { writeString(utf8: $0, into: &sink) }
        if written == nil {
            var copy = string
            copy.withUTF8 { writeString(utf8: $0, into: &sink) }
        }
    }

    /// Appends the UTF-8 text `text` quoted and escaped: each run of bytes that needs no escape
    /// is copied at once.
    private static func writeString(utf8 text: UnsafeBufferPointer<UInt8>, into sink: inout GrowableBuffer<UInt8>) {
        sink.append(UInt8(ascii: "\""))
        var runStart = 0
        for index in text.indices {
            let byte = text[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            sink.append(UnsafeBufferPointer(rebasing: text[runStart..<index]))
            appendEscape(of: byte, to: &sink)
            runStart = index + 1
        }
        sink.append(UnsafeBufferPointer(rebasing: text[runStart...]))
        sink.append(UInt8(ascii: "\""))
    }

    /// Appends the escape RFC 8259 requires for `byte` (a quote, a backslash or a control character).
    private static func appendEscape(of byte: UInt8, to sink: inout GrowableBuffer<UInt8>) {
        sink.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): sink.append(byte)
        case 0x0A: sink.append(UInt8(ascii: "n"))
        case 0x0D: sink.append(UInt8(ascii: "r"))
        case 0x09: sink.append(UInt8(ascii: "t"))
        default:
            var escape = Array("u00".utf8)
            HexDigits.append(byte, to: &escape)
            escape.withUnsafeBufferPointer { sink.append($0) }
        }
    }
}
