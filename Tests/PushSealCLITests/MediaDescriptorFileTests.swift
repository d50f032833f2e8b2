import Foundation
import PushSealCore
import PushSealTestSupport
import Testing

/// cli-v1.md, "Media": what `media seal` checks before it writes anything, and the forms of the
/// descriptor file that `media open` reads.
@Suite("pushseal media: the sealer's checks and the descriptor file", .serialized)
struct MediaDescriptorFileTests {
    /// A world with `photo.psm` sealed from a JPEG, its descriptor line in `photo.json`.
    static func sealed() throws -> (CLIWorld, String) {
        let world = try CLIWorld()
        try Data(MediaSamples.media(.jpeg, length: 5_000)).write(
            to: URL(fileURLWithPath: world.directory.file("photo.jpg")))
        let sealed = try world.run([
            "media", "seal", "photo.jpg", "--out", "photo.psm", "--url", "https://cdn.example/p",
        ])
        #expect(sealed.status == 0, "\(sealed.errors)")
        let line = sealed.output.trimmingCharacters(in: .newlines)
        try world.directory.write("photo.json", line)
        return (world, line)
    }

    @Test("an empty file is refused: there is no media to attach")
    func emptyFile() throws {
        let world = try CLIWorld()
        try world.directory.write("empty.jpg", "")
        let result = try world.run(["media", "seal", "empty.jpg", "--out", "empty.psm"])
        #expect(result.status == 2 && result.errors.contains("empty"), "\(result.errors)")
        #expect(!FileManager.default.fileExists(atPath: world.directory.file("empty.psm")))
    }

    @Test("a FIFO in place of the file is refused at once: not a regular file, nothing written")
    func fifo() throws {
        let world = try CLIWorld()
        #expect(mkfifo(world.directory.file("photo.jpg"), 0o600) == 0)
        let result = try world.run(["media", "seal", "photo.jpg", "--out", "photo.psm"])
        #expect(result.status == 2 && result.errors.contains("photo.jpg is not a regular file"), "\(result.errors)")
        #expect(!FileManager.default.fileExists(atPath: world.directory.file("photo.psm")))
    }

    @Test("without --url the placeholder is on .invalid, the object's name percent-encoded")
    func placeholder() throws {
        let world = try CLIWorld()
        try Data(MediaSamples.media(.png, length: 300)).write(to: URL(fileURLWithPath: world.directory.file("a.png")))
        let result = try world.run(["media", "seal", "a.png", "--out", "my photo#1é.psm"])
        #expect(result.status == 0, "\(result.errors)")
        let descriptor = try #require(try JSONParser.parse(result.output.trimmingCharacters(in: .newlines)).objectValue)
        #expect(descriptor["url"] == .string("https://media.invalid/my%20photo%231%C3%A9.psm"))
        #expect(result.errors.contains("no --url"))
    }

    @Test("the bare descriptor and a payload whose media is the descriptor both open")
    func bothForms() throws {
        let (world, line) = try Self.sealed()
        try world.directory.write("payload.json", #"{"aps":{"alert":"x"},"media":\#(line)}"#)
        for (file, out) in [("photo.json", "a.jpg"), ("payload.json", "b.jpg")] {
            let opened = try world.run(["media", "open", "photo.psm", "--descriptor", file, "--out", out])
            #expect(opened.status == 0, "\(file): \(opened.errors)")
        }
    }

    @Test(
        "a descriptor file that is not one JSON object, or not a descriptor, is media-integrity with status 1",
        arguments: [
            ("[1]", "$ must be a JSON object"), ("{\"url\":1,\"url\":2}", "duplicate member name \"url\""),
            ("\u{FEFF}{}", "not a JSON descriptor"), ("{} {}", "after the JSON value"),
            ("{\"media\":[]}", "$.media must be"),
            ("{\"url\":\"https://cdn.example/p\"}", "$.media.key"),
        ])
    func malformed(_ text: String, _ detail: String) throws {
        let (world, _) = try Self.sealed()
        try world.directory.write("bad.json", text)
        let result = try world.run(["media", "open", "photo.psm", "--descriptor", "bad.json", "--out", "x.jpg"])
        #expect(result.status == 1, "\(text): \(result.errors)")
        #expect(
            result.errors.contains("bad.json: media-integrity: ") && result.errors.contains(detail), "\(result.errors)")
        #expect(!FileManager.default.fileExists(atPath: world.directory.file("x.jpg")))
    }

    @Test("a descriptor's own reason is reported: a length of 2^63 is media-too-large")
    func descriptorReason() throws {
        let (world, line) = try Self.sealed()
        let pattern = try #require(try? Regex(#""length":\d+"#))
        try world.directory.write("huge.json", line.replacing(pattern, with: #""length":9223372036854775808"#))
        let result = try world.run(["media", "open", "photo.psm", "--descriptor", "huge.json", "--out", "x.jpg"])
        #expect(result.status == 1 && result.errors.contains("media-too-large"), "\(result.errors)")
        #expect(result.errors.contains("9223372036854775808"), "the message gives the length as written")
    }

    @Test("a descriptor file that cannot be read is status 2; so is a bad --media for encrypt")
    func unreadable() throws {
        let (world, _) = try Self.sealed()
        let missing = try world.run(["media", "open", "photo.psm", "--descriptor", "missing.json", "--out", "x.jpg"])
        #expect(missing.status == 2, "\(missing.errors)")
        try world.directory.write("bad.json", "[1]")
        let encrypted = try world.encrypt(#"{"aps":{"alert":"x"}}"#, ["--media", "bad.json"])
        #expect(encrypted.status == 2 && encrypted.errors.contains("media-integrity"), "\(encrypted.errors)")
    }
}
