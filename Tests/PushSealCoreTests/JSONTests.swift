import PushSealCore
import Testing

@Suite("JSON parser and writer")
struct JSONTests {
    static let roundTrips = [
        #"{}"#, #"[]"#, #"{"a":1,"b":[true,false,null],"c":{"d":"e"}}"#,
        #"[-0,0.5,1e3,-2.5E-7,123456789012345678901234567890]"#,
        #"{"z":1,"a":2,"m":3}"#, #""é日本🔑""#, #""\"\\\n\r\t\u0001\u001f""#, #"{"":""}"#,
    ]

    @Test("compact JSON round-trips byte for byte: member order and number literals are kept", arguments: roundTrips)
    func roundTrip(_ text: String) throws {
        #expect(JSONWriter.string(try JSONParser.parse(text)) == text)
    }

    @Test("escapes decode to the characters they name; the writer escapes only what it must")
    func escapes() throws {
        #expect(try JSONParser.parse(#""\u00e9\ud83d\udd11\/""#) == .string("é🔑/"))
        #expect(JSONWriter.string(.string("a/b")) == #""a/b""#, "slash is not escaped")
        #expect(JSONWriter.string(.string("\u{8}")) == #""\u0008""#)
        #expect(try JSONParser.parse(" \n\t[ 1 , 2 ]\r\n") == .array([.number(JSONNumber(1)), .number(JSONNumber(2))]))
    }

    static let invalid: [(String, Int)] = [
        ("", 0), ("{", 1), (#"{"a"}"#, 4), (#"{"a":1,}"#, 7), ("[1,]", 3), ("01", 1), ("1.", 2), ("1e", 2), ("-", 1),
        ("+1", 0), (".5", 0), ("tru", 0), ("nul", 0), (#""abc"#, 4), ("\"a\u{1}\"", 2), (#""\x""#, 3), (#""\u12""#, 3),
        (#""\ud800""#, 7), (#""\udc00""#, 7), ("[1] 2", 4), (#"{"a":1,"a":2}"#, 7), ("NaN", 0), ("[1,2", 4),
    ]

    @Test("malformed input is refused with the byte offset of the problem")
    func refuses() {
        for (text, offset) in Self.invalid {
            do {
                _ = try JSONParser.parse(text)
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.offset == offset, "\(text): \(error)")
            }
        }
    }

    @Test("invalid UTF-8 is refused, in a string and outside one")
    func invalidUTF8() {
        for bytes: [UInt8] in [
            [0x22, 0xC3, 0x28, 0x22], [0x22, 0xFF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0xEF, 0xBB, 0xBF, 0x31],
        ] {
            #expect(throws: JSONParseError.self) { try JSONParser.parse(bytes) }
        }
    }

    @Test("duplicate member names are refused in small and in large objects")
    func duplicates() throws {
        let large = "{" + (0..<100).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + ",\"k7\":0}"
        #expect(throws: JSONParseError.self) { try JSONParser.parse(large) }
        let distinct = "{" + (0..<100).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}"
        #expect(try JSONParser.parse(distinct).objectValue?.count == 100)
    }

    @Test("member names are compared by their UTF-8 bytes, not by canonical equivalence")
    func namesAreBytes() throws {
        // U+212A KELVIN SIGN is canonically equivalent to "K": a different name all the same.
        let small = try #require(try JSONParser.parse(#"{"K":1,"\u212a":2}"#).objectValue)
        #expect(small.count == 2)
        #expect(small["K"] == .number(JSONNumber(1)))
        #expect(small["\u{212A}"] == .number(JSONNumber(2)))
        let large = "{" + (0..<20).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + #","K":1,"\u212a":2}"#
        #expect(try JSONParser.parse(large).objectValue?.count == 22)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(#"{"\u212a":1,"\u212a":2}"#) }
    }

    @Test("nesting is limited to 64 levels")
    func depth() throws {
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(throws: Never.self) { try JSONParser.parse(ok) }
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(deep) }
    }

    @Test("objects keep order, and the subscript reads, replaces, adds and removes members")
    func objectEditing() throws {
        let number = try JSONParser.parse("1.50").numberValue
        var object = try #require(try JSONParser.parse(#"{"b":1,"a":2}"#).objectValue)
        #expect(object.members.map(\.name) == ["b", "a"])
        object["a"] = .string("x")
        object["c"] = .null
        object["b"] = nil
        #expect(JSONWriter.string(.object(object)) == #"{"a":"x","c":null}"#)
        #expect(object["missing"] == nil)
        #expect(number?.doubleValue == 1.5)
    }
}
