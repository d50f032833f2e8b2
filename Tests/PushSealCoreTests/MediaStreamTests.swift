import PushSealCore
import PushSealTestSupport
import Testing

/// Media objects made and opened in memory: the format's guarantees, without a network.
@Suite("Media objects (media-v1)")
struct MediaStreamTests {
    static func media(_ type: MediaType, length: Int) -> [UInt8] { MediaSamples.media(type, length: length) }

    static func seal(_ bytes: [UInt8], as type: MediaType) throws -> (MediaDescriptor, [UInt8]) {
        try MediaSamples.seal(bytes, as: type)
    }

    static func open(_ object: [UInt8], _ descriptor: MediaDescriptor) -> Result<[UInt8], MediaFailure> {
        MediaSamples.open(object, descriptor)
    }

    @Test(
        "round trip at chunk boundaries; the size is 36 + Padme(length) + 16 per chunk",
        arguments: [
            1, 2, 100, 4_096, 65_535, 65_536, 65_537, 131_072, 300_001,
        ])
    func roundTrip(_ length: Int) throws {
        let bytes = Self.media(.jpeg, length: length)
        let (descriptor, object) = try Self.seal(bytes, as: length < 4 ? .jpeg : .jpeg)
        #expect(object.count == descriptor.size)
        #expect(descriptor.size == MediaObject.objectSize(length: length))
        if length >= 3 {
            #expect(try Self.open(object, descriptor).get() == bytes)
        }
        let padded = MediaObject.paddedLength(length)
        #expect(padded >= length)
        if length >= 2_048 { #expect(Double(padded - length) <= Double(length) * 0.0625) }
        let reparsed = try MediaDescriptor(json: descriptor.json)
        #expect(reparsed.size == descriptor.size && reparsed.sha256 == descriptor.sha256)
    }

    @Test("Padme's published values")
    func padme() {
        #expect(MediaObject.paddedLength(9) == 10)
        #expect(MediaObject.paddedLength(1_000) == 1_024)
        #expect(MediaObject.paddedLength(1_000_000) == 1_015_808)
        #expect(MediaObject.paddedLength(65_536) == 65_536)
    }

    @Test("a flipped byte anywhere, swapped chunks, a missing final chunk or extra bytes never open")
    func tampering() throws {
        let bytes = Self.media(.png, length: 200_000)
        let (descriptor, object) = try Self.seal(bytes, as: .png)
        let chunk = MediaObject.chunkByteCount + MediaObject.tagByteCount
        let positions = [
            0, 3, 4, 35, 36, 36 + 100, 36 + chunk - 1, 36 + chunk + 5, object.count - 17, object.count - 1,
        ]
        for position in positions {
            var tampered = object
            tampered[position] ^= 0x01
            #expect(throws: MediaFailure.self, "byte \(position)") { try Self.open(tampered, descriptor).get() }
        }
        var swapped = object
        swapped.replaceSubrange(36..<(36 + chunk), with: object[(36 + chunk)..<(36 + 2 * chunk)])
        swapped.replaceSubrange((36 + chunk)..<(36 + 2 * chunk), with: object[36..<(36 + chunk)])
        #expect(throws: MediaFailure.self) { try Self.open(swapped, descriptor).get() }
        let withoutFinal = Array(object[..<(36 + 3 * chunk)])
        #expect(throws: MediaFailure(.integrity, "")) { try Self.open(withoutFinal, descriptor).get() }
        let longer = object + [0]
        #expect(throws: MediaFailure(.tooLarge, "")) { try Self.open(longer, descriptor).get() }
    }

    @Test("media sealed under another type's name opens, and is refused as a type mismatch")
    func typeMismatch() throws {
        let (descriptor, object) = try Self.seal(Self.media(.png, length: 5_000), as: .jpeg)
        #expect(throws: MediaFailure(.typeMismatch, "")) { try Self.open(object, descriptor).get() }
    }

    @Test("descriptors are checked: https, known type, limit, size, every member")
    func descriptors() throws {
        let (descriptor, _) = try Self.seal(Self.media(.jpeg, length: 1_000), as: .jpeg)
        func variant(_ change: (inout JSONObject) -> Void) -> MediaFailure.Reason? {
            var json = descriptor.json
            change(&json)
            do {
                _ = try MediaDescriptor(json: json)
                return nil
            } catch {
                return error.reason
            }
        }
        #expect(variant { _ in } == nil)
        #expect(variant { $0["url"] = .string("http://cdn.example.com/m") } == .insecureURL)
        #expect(variant { $0["url"] = .string("file:///etc/passwd") } == .insecureURL)
        #expect(variant { $0["type"] = .string("image/heic") } == .integrity)
        #expect(variant { $0["length"] = .number(JSONNumber(10_000_001)) } == .tooLarge)
        #expect(variant { $0["size"] = .number(JSONNumber(descriptor.size + 1)) } == .integrity)
        #expect(variant { $0["key"] = .string("AAAA") } == .integrity)
        #expect(variant { $0["extra"] = .null } == .integrity)
        #expect(variant { $0["sha256"] = nil } == .integrity)
    }

    @Test("types are sniffed from magic bytes; HEIC, WebP and MOV are refused with a transcode hint")
    func sniffing() throws {
        let cases: [([UInt8], MediaType)] = [
            ([0xFF, 0xD8, 0xFF, 0xDB], .jpeg), ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], .png),
            (Array("GIF89a".utf8), .gif), (Array("FORM\0\0\0\0AIFF".utf8), .aiff),
            (Array("RIFF\0\0\0\0WAVE".utf8), .wav),
            (Array("RIFF\0\0\0\0AVI ".utf8), .avi), (Array("ID3\u{3}".utf8), .mp3), ([0xFF, 0xFB, 0x90, 0x64], .mp3),
            ([0, 0, 1, 0xBA], .mpegVideo), ([0, 0, 0, 0x20] + Array("ftypM4A ".utf8), .mpeg4Audio),
            ([0, 0, 0, 0x20] + Array("ftypmp42".utf8), .mpeg4Video),
        ]
        for (head, type) in cases { #expect(try MediaType.sniff(head) == type, "\(type)") }
        for head in [
            [0, 0, 0, 0x18] + Array("ftypheic".utf8), Array("RIFF\0\0\0\0WEBP".utf8),
            [0, 0, 0, 0x14] + Array("ftypqt  ".utf8),
        ] {
            do {
                _ = try MediaType.sniff(head)
                Issue.record("accepted \(head)")
            } catch let error as PushSealError {
                #expect(error.detail.contains("transcode"))
            }
        }
        #expect(throws: PushSealError.self) { try MediaType.sniff(Array("%PDF-1.7".utf8)) }
    }
}
