import Foundation
import PushSealCore
import PushSealTestSupport
import Testing

/// The Swift implementation against the independent Python one in `interop/python`.
@Suite("Interop with the Python implementation", .serialized)
struct InteropTests {
    static let suites = ["x25519", "p256", "xchacha"]

    @Test("Python checks every vector of envelope-v1.json")
    func vectors() throws {
        let file = TestVectors.packageRoot.appendingPathComponent("Tests/PushSealCoreTests/Vectors/envelope-v1.json")
        let result = try PythonPeer.pushseal(["vectors", file.path])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("137 passed, 0 failed"))
        print("interop: Python checked envelope-v1.json: \(result.output.trimmingCharacters(in: .newlines))")
    }

    @Test("Python, from envelope-v1.md alone, checks every receipt vector of envelope-v1.json")
    func receiptVectors() throws {
        let file = TestVectors.packageRoot.appendingPathComponent("Tests/PushSealCoreTests/Vectors/envelope-v1.json")
        let result = try PythonPeer.receipt(["vectors", file.path])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("9 passed, 0 failed"), "\(result.output)")
    }

    @Test("Python seals, pushseal decrypt opens: every suite, both modes", arguments: suites)
    func pythonSeals(_ suite: String) throws {
        for authenticated in suite == "xchacha" ? [false] : [false, true] {
            let world = try CLIWorld(suite: suite, pinSender: authenticated)
            let sender = authenticated ? ["--sender", "sender.jwk"] : []
            let sealed = try PythonPeer.pushseal(
                ["seal", "--to", "device.jwk"] + sender, input: order, in: world.directory.path)
            #expect(sealed.status == 0, "\(sealed.errors)")
            let opened = try world.run(["decrypt", "--store", "store"], input: sealed.output)
            #expect(opened.status == 0)
            let result = try #require(try JSONParser.parse(opened.output.trimmingCharacters(in: .newlines)).objectValue)
            #expect(result["mode"] == .string(authenticated ? "auth" : "base"))
            #expect(result["notification"]?.objectValue?["userInfo"] == (try JSONParser.parse(order)))
        }
    }

    @Test("pushseal encrypt seals, Python opens: every suite, both modes", arguments: suites)
    func swiftSeals(_ suite: String) throws {
        for authenticated in suite == "xchacha" ? [false] : [false, true] {
            let world = try CLIWorld(suite: suite, pinSender: authenticated)
            let sender = authenticated ? ["--sender", "sender.jwk"] : []
            let sealed = try world.run(["encrypt", "--to", "device.jwk"] + sender, input: order)
            let opened = try PythonPeer.pushseal(
                ["open", "--store", "store"], input: sealed.output, in: world.directory.path)
            #expect(opened.status == 0, "\(opened.errors)")
            let result = try #require(try JSONParser.parse(opened.output.trimmingCharacters(in: .newlines)).objectValue)
            #expect(result["status"] == .string("decrypted"))
            #expect(result["mode"] == .string(authenticated ? "auth" : "base"))
            #expect(result["content"] == (try JSONParser.parse(order)))
        }
    }

    /// Each byte of an envelope from each side, flipped: both openers must name the same reason.
    @Test("tampered envelopes degrade with the same reason on both sides", arguments: suites)
    func sameReasons(_ suite: String) throws {
        let world = try CLIWorld(suite: suite)
        let swiftSealed = try world.encrypt(order).output
        let sender = suite == "xchacha" ? [] : ["--sender", "sender.jwk"]
        let pythonSealed = try PythonPeer.pushseal(
            ["seal", "--to", "device.jwk"] + sender, input: order, in: world.directory.path
        ).output
        var batch = ""
        var lastKeyIDNewline = ""
        for sealed in [swiftSealed, pythonSealed] {
            let outer = try #require(try JSONParser.parse(sealed.trimmingCharacters(in: .newlines)).objectValue)
            let text = try #require(outer["enc"]?.stringValue)
            let bytes = try #require(Self.decode(text))
            for index in bytes.indices where index < 120 || index % 37 == 0 {
                var tampered = bytes
                tampered[index] ^= 0x04
                var copy = outer
                copy["enc"] = .string(Self.encode(tampered))
                batch += JSONWriter.string(.object(copy)) + "\n"
            }
            // The last byte of the last key id (the sender's in auth mode) made a newline: a
            // regular expression's `$` also matches before a final newline, which once let the
            // Python opener take it for a key id (untrusted-sender) where the contract says
            // malformed-envelope.
            let kidEnd = 4 + Int(bytes[3])
            let end = bytes[2] == 0x02 ? kidEnd + 1 + Int(bytes[kidEnd]) : kidEnd
            var newline = bytes
            newline[end - 1] = 0x0A
            var copy = outer
            copy["enc"] = .string(Self.encode(newline))
            lastKeyIDNewline += JSONWriter.string(.object(copy)) + "\n"
        }
        batch += lastKeyIDNewline
        let swiftResults = try world.run(["decrypt", "--store", "store", "--json-lines"], input: batch).lines
        let pythonResults = try PythonPeer.pushseal(
            ["open", "--store", "store", "--json-lines"], input: batch, in: world.directory.path
        ).lines
        #expect(swiftResults.count == pythonResults.count && swiftResults.count > 100)
        for line in swiftResults.suffix(2) {
            #expect(try JSONParser.parse(line).objectValue?["reason"] == .string("malformed-envelope"), "\(line)")
        }
        var compared = 0
        for (swift, python) in zip(swiftResults, pythonResults) {
            let swiftReason = try #require(try JSONParser.parse(swift).objectValue)["reason"]
            let pythonReason = try #require(try JSONParser.parse(python).objectValue)["reason"]
            #expect(swiftReason != nil)
            #expect(
                swiftReason == pythonReason,
                "Swift \(String(describing: swiftReason)) vs Python \(String(describing: pythonReason))")
            compared += 1
        }
        print("interop: \(compared) tampered \(suite) envelopes degraded with the same reason on both sides")
    }

    @Test("Python checks every vector of media-v1.json, and re-seals the positive ones byte for byte")
    func mediaVectors() throws {
        let file = TestVectors.packageRoot.appendingPathComponent("Tests/PushSealCoreTests/Vectors/media-v1.json")
        let result = try PythonPeer.media(["vectors", file.path])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("89 passed, 0 failed"))
        print("interop: Python checked media-v1.json: \(result.output.trimmingCharacters(in: .newlines))")
    }

    @Test("Python, written from envelope-v1.md's \"Fetched content\" alone, checks every case of fetch-v1.json")
    func fetchVectors() throws {
        let file = TestVectors.packageRoot.appendingPathComponent("Tests/PushSealCoreTests/Vectors/fetch-v1.json")
        let result = try PythonPeer.fetch(["vectors", file.path])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("36 passed, 0 failed"), "\(result.output)")
        print("interop: Python checked fetch-v1.json: \(result.output.trimmingCharacters(in: .newlines))")
    }

    @Test("media objects: Python seals, pushseal opens; pushseal seals, Python opens")
    func mediaBothWays() throws {
        let world = try CLIWorld()
        for (name, type, length) in [
            ("a.jpg", MediaType.jpeg, 90_000), ("b.mp4", .mpeg4Video, 140_000), ("c.wav", .wav, 1_234),
        ] {
            let media = MediaSamples.media(type, length: length)
            try Data(media).write(to: URL(fileURLWithPath: world.directory.file(name)))
            let python = try PythonPeer.media(
                ["seal", name, "--out", "\(name).py.psm", "--url", "https://cdn.example.com/\(name)"],
                in: world.directory.path)
            #expect(python.status == 0, "\(python.errors)")
            try world.directory.write("\(name).py.json", python.output)
            let opened = try world.run(
                ["media", "open", "\(name).py.psm", "--descriptor", "\(name).py.json", "--out", "\(name).from-python"])
            #expect(opened.status == 0, "\(opened.errors)")
            #expect(
                Array(try Data(contentsOf: URL(fileURLWithPath: world.directory.file("\(name).from-python")))) == media)

            let swift = try world.run(
                ["media", "seal", name, "--out", "\(name).swift.psm", "--url", "https://cdn.example.com/\(name)"])
            try world.directory.write("\(name).swift.json", swift.output)
            let byPython = try PythonPeer.media(
                ["open", "\(name).swift.psm", "--descriptor", "\(name).swift.json", "--out", "\(name).from-swift"],
                in: world.directory.path)
            #expect(byPython.status == 0 && byPython.output.contains(type.name), "\(byPython.output)")
            #expect(
                Array(try Data(contentsOf: URL(fileURLWithPath: world.directory.file("\(name).from-swift")))) == media)
        }
    }

    static func decode(_ text: String) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map(Array.init)
    }

    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(
            of: "/", with: "_"
        )
        .replacingOccurrences(of: "=", with: "")
    }
}
