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

    @Test("a number from a double is JSON the parser reads back as the same double; infinities and NaN are none")
    func doubles() throws {
        for value in [0.25, 1.0 / 3, -2.5e-7, 1e21, 0] as [Double] {
            let number = try #require(JSONNumber(value))
            #expect(try JSONParser.parse(number.literal) == .number(number), "\(number.literal)")
            #expect(number.doubleValue == value)
        }
        #expect(
            JSONNumber(Double.infinity) == nil && JSONNumber(-Double.infinity) == nil && JSONNumber(Double.nan) == nil)
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
        for late in [#""x":1,"y":2,"x":3"#, #""\u0078":1,"y":2,"x":3"#, #""ab":1,"a":2,"ab":3"#] {
            let text = "{" + (0..<20).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "," + late + "}"
            #expect(throws: JSONParseError.self, "\(late)") { try JSONParser.parse(text) }
        }
        // Past the first sixteen members, with any member before it, a name repeated later is refused.
        let letters = "abcdefghijklmnopqrstuvwxyz".map(String.init)
        let pool = stride(from: 0, to: 676, by: 17).map { letters[$0 / 26] + letters[$0 % 26] }
        let first20 = (0..<20).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        for before in pool {
            for repeated in pool where repeated != before {
                let text = "{\(first20),\"\(before)\":0,\"\(repeated)\":1,\"\(repeated)\":2}"
                #expect(throws: JSONParseError.self, "\(before), \(repeated)") { try JSONParser.parse(text) }
            }
        }
        for small in [#"{"ab":1,"ba":2,"ab":3}"#, #"{"a":1,"":2,"":3}"#, #"{"abc":1,"a\u0062c":2}"#] {
            #expect(throws: JSONParseError.self, "\(small)") { try JSONParser.parse(small) }
        }
        let distinct = "{" + (0..<100).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}"
        #expect(try JSONParser.parse(distinct).objectValue?.count == 100)
    }

    static let nestedDuplicates: [(String, Int)] = [
        (#"[{"a":1,"b":2},{"a":3,"a":4}]"#, 22), (#"[{"a":1,"b":2},{"b":3,"b":4}]"#, 22),
        (#"[{"a":1},{"a":1,"b":2,"a":3}]"#, 22), (#"[{"a\"":1},{"a\"":2,"a\"":3}]"#, 20),
        (#"[[{"a":1}],[{"a":2,"a":3}]]"#, 19), (#"[{"a":1},{},{"a":2,"a":3}]"#, 19),
    ]

    static let similarObjects: [(String, String?)] = [
        (#"[{"k":1,"l":2},{"k":3,"m":4},{"k":5,"l":6,"n":7},{"l":8,"k":9}]"#, nil),
        (#"[{"ab":1},{"a":2,"ab":3},{"a":4}]"#, nil), (#"[{"a":1},{"ab":2},{"a\"":3},{"a\"b":4}]"#, nil),
        (#"[{"\u0041":1},{"A":2,"\u0041x":3}]"#, #"[{"A":1},{"A":2,"Ax":3}]"#),
    ]

    @Test("objects in arrays refuse their own duplicates, and objects that share names round-trip")
    func objectsInArrays() throws {
        for (text, offset) in Self.nestedDuplicates {
            do {
                _ = try JSONParser.parse(text)
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.offset == offset && error.message.hasPrefix("duplicate member name"), "\(text): \(error)")
            }
        }
        for (text, written) in Self.similarObjects {
            #expect(JSONWriter.string(try JSONParser.parse(text)) == written ?? text)
        }
    }

    static let documents = [
        #"{"a":1,"b":[true,false,null,{"c":"d"},[]],"e":{},"f":-2.5e3}"#,
        #"{ "a\u0041" : [ 1 , "x\/y" , "\n\"\\" ] , "é日本🔑" : { "" : "\ud83d\udd11" } }"#,
        "{" + (0..<40).map { "\"k\\u00\(30 + $0 % 10)\($0)\":\"v\($0)\"" }.joined(separator: ",") + "}",
        #"{"items":[{"sku":"A","qty":1},{"sku":"B","qty":2,"note":"tab\there"}],"text":"\u2028"}"#,
    ]

    /// The same value with every object built from its members, as code builds one.
    static func rebuilt(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object): .object(JSONObject(object.members.map { ($0.name, rebuilt($0.value)) }))
        case .array(let elements): .array(elements.map(rebuilt))
        default: value
        }
    }

    @Test("a parsed object reads, compares, hashes and writes like one built from its members", arguments: documents)
    func parsedObjects(_ text: String) throws {
        let parsed = try #require(try JSONParser.parse(text).objectValue)
        let built = try #require(Self.rebuilt(.object(parsed)).objectValue)
        #expect(parsed == built && built == parsed)
        #expect(parsed.hashValue == built.hashValue)
        #expect(parsed.count == built.count)
        #expect(JSONWriter.string(.object(parsed)) == JSONWriter.string(.object(built)))
        for (name, value) in built {
            #expect(parsed[name] == value, "\(name)")
        }
        #expect(parsed["absent"] == nil)
        var edited = parsed
        edited[built.members[0].name] = .string("changed")
        edited["added"] = .null
        #expect(edited != parsed)
        #expect(parsed == built, "editing a copy leaves the parsed object as it was")
        #expect(edited.count == built.count + 1 && edited[built.members[0].name] == .string("changed"))
    }

    @Test("the writer copies a parsed document without its white space and with its escapes normalised")
    func parsedWriting() throws {
        let text = #"{ "a\u0041" : [ 1 , "x\/y" , "\u00e9\n" ] , "b" : { } }"#
        #expect(JSONWriter.string(try JSONParser.parse(text)) == #"{"aA":[1,"x/y","é\n"],"b":{}}"#)
    }

    @Test("strings are read right whatever byte sits where: each special byte at each offset of the first 24")
    func everyOffset() throws {
        for length in 1...24 {
            let plain = Array(repeating: UInt8(ascii: "a"), count: length - 1)
            for offset in 0..<length {
                // The string is followed by a second one, so that a word read past its closing
                // quote sees bytes that must not count (a quote, a high byte).
                func document(_ inserted: [UInt8]) -> [UInt8] {
                    Array("[\"".utf8) + plain[..<offset] + inserted + plain[offset...] + Array("\",\"é\"]".utf8)
                }
                for (inserted, middle) in [
                    (Array("\\n".utf8), "\n"), (Array("\\\"".utf8), "\""), (Array("\\\\".utf8), "\\"),
                    ([0x20], " "), ([0x7F], "\u{7F}"), ([0xC3, 0xA9], "é"), ([0x21], "!"), ([0x5D], "]"),
                ] {
                    let text = String(decoding: plain[..<offset] + Array(middle.utf8) + plain[offset...], as: UTF8.self)
                    #expect(
                        try JSONParser.parse(document(inserted)) == .array([.string(text), .string("é")]),
                        "length \(length), offset \(offset): \(middle.debugDescription)")
                }
                for refused: UInt8 in [0x00, 0x1F, 0xFF] {
                    #expect(throws: JSONParseError.self, "byte \(refused) at \(offset) of \(length)") {
                        try JSONParser.parse(document([refused]))
                    }
                }
                do {
                    _ = try JSONParser.parse(document([0x22]))
                    Issue.record("a quote at \(offset) of \(length) did not end the string")
                } catch {
                    #expect(error.offset == offset + 3, "a quote at \(offset) of \(length): \(error)")
                }
            }
        }
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

    @Test("the writer grows past its first buffer and appends after bytes already written")
    func longOutput() throws {
        let long = String(repeating: "é\"\u{1}x", count: 5_000)
        let text = JSONWriter.string(.array([.string(long), .object(JSONObject([(long, .null)]))]))
        #expect(try JSONParser.parse(text) == .array([.string(long), .object(JSONObject([(long, .null)]))]))
        var output = Array("prefix:".utf8)
        JSONWriter.write(.string("a\nb"), into: &output)
        JSONWriter.writeString("c", into: &output)
        #expect(String(decoding: output, as: UTF8.self) == #"prefix:"a\nb""c""#)
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
