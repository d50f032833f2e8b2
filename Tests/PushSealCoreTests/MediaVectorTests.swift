import Foundation
import PushSealCore
import PushSealPrimitives
import PushSealTestSupport
import Testing

/// `Vectors/media-v1.json`: media objects for other implementations, made from fixed keys and
/// salts so that the file is reproducible, and checked against this implementation.
@Suite("media-v1.json vectors")
struct MediaVectorTests {
    static let url = TestVectors.packageRoot.appendingPathComponent("Tests/PushSealCoreTests/Vectors/media-v1.json")

    /// The file as this implementation makes it. Positive vectors give the media (or, when it
    /// is large, its SHA-256), the key in the descriptor, the salt and the object; negative ones
    /// are edits of a positive vector's object (`flip` a byte, `truncate`, `append` zero bytes,
    /// `copy` bytes within it) or a whole object, each with the reason it must fail with.
    static func generate() throws -> JSONObject {
        var positive: [JSONValue] = []
        var objects: [(MediaDescriptor, [UInt8])] = []
        let samples: [(MediaType, Int, String)] = [
            (.jpeg, 3, "the smallest JPEG: 3 bytes, one chunk"),
            (.png, 1_000, "a PNG of 1,000 bytes, padded to 1,024"),
            (.mpeg4Video, 70_000, "an MPEG-4 video of two chunks, the second the final one"),
            (.wav, 65_536, "a WAV of exactly one full final chunk"),
        ]
        for (index, sample) in samples.enumerated() {
            let media = MediaSamples.media(sample.0, length: sample.1)
            let (descriptor, object) = try Self.seal(media, as: sample.0, index: index)
            objects.append((descriptor, object))
            var vector = JSONObject([("comment", .string(sample.2)), ("salt", .string(Hex.encode(object[4..<36])))])
            if media.count <= 4_096 {
                vector["media"] = .string(Base64URL.encode(media))
            } else {
                vector["media_sha256"] = .string(Hex.encode(SHA256.hash(media)))
            }
            vector["descriptor"] = .object(descriptor.json)
            vector["object"] = .string(Base64URL.encode(object))
            positive.append(.object(vector))
        }
        let size = objects[2].1.count
        let chunk = MediaObject.chunkByteCount + MediaObject.tagByteCount
        let edits: [(String, (String, JSONValue), String)] = [
            ("the magic changed", ("flip", .number(JSONNumber(0))), "media-integrity"),
            ("a byte of the salt flipped", ("flip", .number(JSONNumber(20))), "media-integrity"),
            ("a byte of the first chunk flipped", ("flip", .number(JSONNumber(40))), "media-integrity"),
            (
                "a byte of the first chunk's tag flipped", ("flip", .number(JSONNumber(36 + chunk - 1))),
                "media-integrity"
            ),
            ("a byte of the final chunk flipped", ("flip", .number(JSONNumber(36 + chunk + 10))), "media-integrity"),
            ("the final chunk's tag flipped", ("flip", .number(JSONNumber(size - 1))), "media-integrity"),
            ("the final chunk missing", ("truncate", .number(JSONNumber(36 + chunk))), "media-integrity"),
            ("one byte more than the size", ("append", .number(JSONNumber(1))), "media-too-large"),
            (
                "the first 4,000 bytes of the second chunk copied over the first's",
                (
                    "copy",
                    .object(
                        JSONObject([
                            ("source", .number(JSONNumber(36 + chunk))), ("target", .number(JSONNumber(36))),
                            ("length", .number(JSONNumber(4_000))),
                        ]))
                ), "media-integrity"
            ),
        ]
        var negative: [JSONValue] = edits.map { comment, edit, reason in
            .object(
                JSONObject([
                    ("comment", .string(comment)), ("from", .number(JSONNumber(2))), edit, ("reason", .string(reason)),
                ]))
        }
        let (mismatched, object) = try Self.seal(MediaSamples.media(.png, length: 500), as: .jpeg, index: 9)
        negative.append(
            .object(
                JSONObject([
                    ("comment", .string("a PNG sealed as image/jpeg")), ("descriptor", .object(mismatched.json)),
                    ("object", .string(Base64URL.encode(object))), ("reason", .string("media-type-mismatch")),
                ])))
        // The key commitment alone: an intact object, and a descriptor whose sha256 is another
        // object's. Every chunk opens; only the SHA-256 comparison can refuse it.
        var committed = objects[2].0.json
        committed["sha256"] = .string(Base64URL.encode(objects[1].0.sha256))
        negative.append(
            .object(
                JSONObject([
                    ("comment", .string("an intact object under a descriptor whose sha256 is another object's")),
                    ("from", .number(JSONNumber(2))), ("descriptor", .object(committed)),
                    ("reason", .string("media-integrity")),
                ])))
        // The order of the checks while opening (media-v1.md, "Opening"): a byte past the size
        // is refused as it arrives, before the hash; the padding as its chunk opens, before the type.
        negative.append(
            .object(
                JSONObject([
                    ("comment", .string("one byte more than the size, and a sha256 that is another object's")),
                    ("from", .number(JSONNumber(2))), ("append", .number(JSONNumber(1))),
                    ("descriptor", .object(committed)), ("reason", .string("media-too-large")),
                ])))
        let png = MediaSamples.media(.png, length: 1_000)
        var stream = png + [UInt8](repeating: 0, count: MediaObject.paddedLength(png.count) - png.count)
        let (typeOnly, typeOnlyObject) = try Self.rawObject(stream: stream, type: .jpeg, length: png.count, index: 10)
        var wrongHash = typeOnly
        wrongHash["sha256"] = .string(Base64URL.encode(objects[0].0.sha256))
        stream[png.count + 7] = 1
        let (padded, paddedObject) = try Self.rawObject(stream: stream, type: .png, length: png.count, index: 11)
        let (both, bothObject) = try Self.rawObject(stream: stream, type: .jpeg, length: png.count, index: 12)
        let ordered: [(String, JSONObject, [UInt8], String)] = [
            (
                "a PNG declared image/jpeg, and a sha256 that is another object's", wrongHash, typeOnlyObject,
                "media-integrity"
            ),
            ("a non-zero byte in the padding", padded, paddedObject, "media-integrity"),
            ("a non-zero byte in the padding of a PNG declared image/jpeg", both, bothObject, "media-integrity"),
        ]
        for (comment, descriptor, object, reason) in ordered {
            negative.append(
                .object(
                    JSONObject([
                        ("comment", .string(comment)), ("descriptor", .object(descriptor)),
                        ("object", .string(Base64URL.encode(object))), ("reason", .string(reason)),
                    ])))
        }
        let sniff: [JSONValue] = Self.sniffCases.map { comment, head, type in
            .object(
                JSONObject([
                    ("comment", .string(comment)), ("head", .string(Hex.encode(head))),
                    ("type", type.map { .string($0) } ?? .null),
                ]))
        }
        return JSONObject([
            ("description", .string("PushSeal media-v1 vectors: see docs/media-v1.md and the README")),
            ("positive", .array(positive)), ("negative", .array(negative)),
            ("descriptors", .array(Self.descriptorCases(base: objects[0].0))), ("sniff", .array(sniff)),
        ])
    }

    /// Seals with a key and salt derived from `index`, so that the file is reproducible.
    static func seal(_ media: [UInt8], as type: MediaType, index: Int) throws -> (MediaDescriptor, [UInt8]) {
        let key = (0..<32).map { UInt8(truncatingIfNeeded: $0 * 7 + index) }
        let salt = (0..<32).map { UInt8(truncatingIfNeeded: 255 - $0 - index) }
        let sealer = try MediaStreamSealer(type: type, length: media.count, objectKey: key, salt: salt)
        var object: [UInt8] = []
        try media.withUnsafeBytes { try sealer.append($0) { object += $0 } }
        let descriptor = try sealer.finish(url: "https://cdn.example.com/v/\(index).psm") { object += $0 }
        return (descriptor, object)
    }

    /// A negative vector's object: its own, or the edited object of the positive vector `from`.
    static func object(of vector: JSONObject, positive: [JSONObject]) throws -> [UInt8] {
        if let text = vector["object"]?.stringValue { return try #require(Base64URL.decode(text)) }
        let from = try #require(vector["from"]?.numberValue?.intValue)
        var object = try #require(Base64URL.decode(positive[from]["object"]?.stringValue ?? ""))
        if let position = vector["flip"]?.numberValue?.intValue { object[position] ^= 0x01 }
        if let length = vector["truncate"]?.numberValue?.intValue { object = Array(object[..<length]) }
        if let count = vector["append"]?.numberValue?.intValue { object += [UInt8](repeating: 0, count: count) }
        if let copy = vector["copy"]?.objectValue, let source = copy["source"]?.numberValue?.intValue,
            let target = copy["target"]?.numberValue?.intValue, let length = copy["length"]?.numberValue?.intValue
        {
            object.replaceSubrange(target..<(target + length), with: object[source..<(source + length)])
        }
        return object
    }

    static func descriptor(of vector: JSONObject, positive: [JSONObject]) throws -> MediaDescriptor {
        let source = vector["descriptor"] ?? positive[vector["from"]?.numberValue?.intValue ?? 0]["descriptor"]
        return try MediaDescriptor(json: try #require(source?.objectValue))
    }

    @Test("the file is what this implementation makes (PUSHSEAL_WRITE_VECTORS=1 rewrites it)")
    func writeMediaVectors() throws {
        let generated = JSONWriter.string(.object(try Self.generate()))
        if ProcessInfo.processInfo.environment["PUSHSEAL_WRITE_VECTORS"] != nil {
            try (generated + "\n").write(to: Self.url, atomically: true, encoding: .utf8)
        }
        let stored = try String(contentsOf: Self.url, encoding: .utf8).trimmingCharacters(in: .newlines)
        #expect(stored.utf8.count == generated.utf8.count && stored == generated, "media-v1.json and the code disagree")
    }

    @Test("every positive vector opens to its media; every negative one fails with its reason")
    func vectorsOpen() throws {
        let file = try #require(try JSONParser.parse(Array(try Data(contentsOf: Self.url))).objectValue)
        guard case .array(let positive)? = file["positive"], case .array(let negative)? = file["negative"] else {
            Issue.record("malformed vector file")
            return
        }
        let positives = positive.compactMap(\.objectValue)
        for vector in positives {
            let descriptor = try Self.descriptor(of: vector, positive: positives)
            let object = try Self.object(of: vector, positive: positives)
            let opened = try MediaSamples.open(object, descriptor).get()
            if let media = vector["media"]?.stringValue {
                #expect(opened == Base64URL.decode(media), "\(vector["comment"] ?? .null)")
            } else {
                #expect(.string(Hex.encode(SHA256.hash(opened))) == vector["media_sha256"])
            }
        }
        for vector in negative.compactMap(\.objectValue) {
            let descriptor = try Self.descriptor(of: vector, positive: positives)
            let result = MediaSamples.open(try Self.object(of: vector, positive: positives), descriptor)
            if case .failure(let failure) = result {
                #expect(.string(failure.reason.rawValue) == vector["reason"], "\(vector["comment"] ?? .null)")
            } else {
                Issue.record("opened: \(vector["comment"] ?? .null)")
            }
        }
        print("media vectors: \(positive.count) positive and \(negative.count) negative checked")
        #expect(positive.count == 4 && negative.count == 15)
    }

    @Test("every descriptor vector fails with its reason, in media-v1's order, or is valid")
    func descriptorVectors() throws {
        let file = try #require(try JSONParser.parse(Array(try Data(contentsOf: Self.url))).objectValue)
        guard case .array(let vectors)? = file["descriptors"] else {
            Issue.record("no descriptors section")
            return
        }
        for vector in vectors.compactMap(\.objectValue) {
            let text = try #require(vector["descriptor_text"]?.stringValue)
            let object = try #require(try JSONParser.parse(text).objectValue)
            let outcome: JSONValue
            do {
                _ = try MediaDescriptor(json: object)
                outcome = .null
            } catch {
                outcome = .string(error.reason.rawValue)
            }
            #expect(outcome == vector["reason"], "\(vector["comment"] ?? .null)")
        }
        print("media descriptor vectors: \(vectors.count) checked")
        #expect(vectors.count >= 30)
    }

    @Test("every sniff vector shows its type, or none")
    func sniffVectors() throws {
        let file = try #require(try JSONParser.parse(Array(try Data(contentsOf: Self.url))).objectValue)
        guard case .array(let vectors)? = file["sniff"] else {
            Issue.record("no sniff section")
            return
        }
        for vector in vectors.compactMap(\.objectValue) {
            let head = Hex.decode(try #require(vector["head"]?.stringValue))
            let type = try? MediaType.sniff(head)
            #expect(type.map { .string($0.name) } ?? .null == vector["type"], "\(vector["comment"] ?? .null)")
        }
        print("media sniff vectors: \(vectors.count) checked")
        #expect(vectors.count >= 30)
    }
}
