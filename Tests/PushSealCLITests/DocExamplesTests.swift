import Foundation
import PushSealCore
import PushSealTestSupport
import Testing

/// The examples in `docs/` are made by the code, so that they cannot drift from it. Each is a
/// fenced block right after a line `<!-- example: NAME -->`; this suite runs the CLI to make
/// NAME's text and compares. `PUSHSEAL_WRITE_DOCS=1 swift test --filter DocExamplesTests`
/// rewrites the blocks. Values that differ on every run (keys, hashes, the envelope) are shown
/// as `<…>` placeholders.
@Suite("Examples in docs/ are the code's output", .serialized)
struct DocExamplesTests {
    /// One generated example: the file, the marker's name, and the fenced block's text.
    struct Example {
        let file: String
        let name: String
        let text: String
    }

    /// The contract example of contract-v1.md, read from the doc itself.
    static func documentedContract() throws -> String {
        let text = try String(
            contentsOf: TestVectors.packageRoot.appendingPathComponent("docs/contract-v1.md"), encoding: .utf8)
        return try #require(Self.block(named: "contract-file", in: text))
    }

    /// Every example, made now.
    static func generate() throws -> [Example] {
        let world = try CLIWorld()
        var examples: [Example] = []

        try Data(MediaSamples.media(.jpeg, length: 48_213)).write(
            to: URL(fileURLWithPath: world.directory.file("photo.jpg")))
        let sealed = try world.run([
            "media", "seal", "photo.jpg", "--out", "photo.psm", "--url", "https://cdn.example.com/m/5f0c9a.psm",
        ])
        var descriptor = try Self.object(sealed.output)
        descriptor["key"] = .string("<base64url, 32 bytes>")
        descriptor["sha256"] = .string("<base64url, 32 bytes>")
        examples.append(
            Example(
                file: "media-v1.md", name: "media-descriptor", text: #""media": "# + Self.pretty(.object(descriptor))))

        let outer = try world.run(
            ["encrypt", "--to", "device.jwk"],
            input: #"{"aps":{"alert":{"title":"Order #1042","body":"Shipped today"}}}"#)
        var outerObject = try Self.object(outer.output)
        outerObject["enc"] = .string("<base64url without padding of the binary envelope>")
        examples.append(Example(file: "envelope-v1.md", name: "outer-payload", text: Self.pretty(.object(outerObject))))

        let full = #"""
            {"aps":{"alert":{"title":"Order #1042","subtitle":"Shop","body":"Shipped today"},"badge":3,"sound":"default",
             "thread-id":"orders","category":"ORDER","interruption-level":"active","relevance-score":0.5,
             "target-content-id":"order-1042"},"order":1042}
            """#
        let sealedFull = try world.encrypt(full.replacingOccurrences(of: "\n", with: "")).output
        let opened = try world.run(["decrypt", "--store", "store", "--record"], input: sealedFull)
        var line = try Self.object(opened.output)
        line["kid"] = .string("<the device key's kid>")
        line["skid"] = .string("<the sender key's kid>")
        examples.append(Example(file: "cli-v1.md", name: "decrypt-output", text: Self.pretty(.object(line))))

        try world.directory.write("contract.json", try Self.documentedContract())
        let refused = try world.encrypt(
            #"{"aps":{"alert":"Lunch?"},"type":"inbox","event_id":"e1","schema_version":1,"comment":"Re: lunch at 10:30"}"#,
            ["--contract", "contract.json"])
        let message = try #require(
            refused.errors.split(separator: "\n").first?.split(separator: ": ", maxSplits: 2).last)
        examples.append(Example(file: "contract-v1.md", name: "link-message", text: String(message)))
        return examples
    }

    @Test("every marked example is what the code prints (PUSHSEAL_WRITE_DOCS=1 rewrites them)")
    func examples() throws {
        let rewrite = ProcessInfo.processInfo.environment["PUSHSEAL_WRITE_DOCS"] != nil
        for example in try Self.generate() {
            let url = TestVectors.packageRoot.appendingPathComponent("docs/\(example.file)")
            var text = try String(contentsOf: url, encoding: .utf8)
            let current = try #require(
                Self.block(named: example.name, in: text), "\(example.file) has no \(example.name)")
            if rewrite, current != example.text {
                text = text.replacingOccurrences(of: "\n" + current + "\n```", with: "\n" + example.text + "\n```")
                try text.write(to: url, atomically: true, encoding: .utf8)
            }
            #expect(
                rewrite || current == example.text,
                "\(example.file), \(example.name): the doc shows\n\(current)\nthe code makes\n\(example.text)")
        }
    }

    @Test("contract-v1.md's example contract is one the code loads")
    func contractExample() throws {
        _ = try PayloadContract(json: Array(try Self.documentedContract().utf8))
    }

    /// The fenced block after `<!-- example: NAME -->`, without its fences.
    static func block(named name: String, in text: String) -> String? {
        guard let marker = text.range(of: "<!-- example: \(name) -->\n") else { return nil }
        let rest = text[marker.upperBound...]
        guard rest.hasPrefix("```"), let open = rest.firstIndex(of: "\n") else { return nil }
        let body = rest[rest.index(after: open)...]
        guard let close = body.range(of: "\n```") else { return nil }
        return String(body[..<close.lowerBound])
    }

    static func object(_ output: String) throws -> JSONObject {
        try #require(try JSONParser.parse(output.trimmingCharacters(in: .whitespacesAndNewlines)).objectValue)
    }

    /// `value` indented by two spaces a level, members in the code's order; a container that
    /// fits in 100 columns stays on one line.
    static func pretty(_ value: JSONValue, indent: String = "") -> String {
        guard case .object(let object) = value, indent.count + inline(value).count > 100 else { return inline(value) }
        let inner = indent + "  "
        let members = object.map { name, member in
            inner + JSONWriter.string(.string(name)) + ": " + pretty(member, indent: inner)
        }
        return "{\n" + members.joined(separator: ",\n") + "\n" + indent + "}"
    }

    /// `value` on one line, with a space after every `:` and `,`.
    static func inline(_ value: JSONValue) -> String {
        switch value {
        case .object(let object):
            "{" + object.map { JSONWriter.string(.string($0.name)) + ": " + inline($0.value) }.joined(separator: ", ")
                + "}"
        case .array(let elements): "[" + elements.map(inline).joined(separator: ", ") + "]"
        default: JSONWriter.string(value)
        }
    }
}
