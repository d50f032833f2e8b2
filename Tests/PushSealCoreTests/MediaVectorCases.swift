import PushSealPrimitives
import PushSealTestSupport
import Testing

@testable import PushSealCore

/// The sections of `Vectors/media-v1.json` that pin media-v1's decisions one by one: which
/// reason a descriptor with several defects gets, the integers a descriptor may hold, which type
/// each first bytes show, and the order of the checks while an object opens.
extension MediaVectorTests {
    /// Descriptors as JSON text (so that `3.0`, `-0` and 2⁶⁴ keep their spelling), each with the
    /// reason it fails with, or `null`. Every one is an edit of positive vector 0's descriptor.
    static func descriptorCases(base: MediaDescriptor) -> [JSONValue] {
        let key = Base64URL.encodeSecret(base.key)
        let hash = Base64URL.encode(base.sha256)
        let members: [(String, String)] = [
            ("url", quoted(base.url)), ("key", quoted(key)), ("type", quoted(base.type.name)),
            ("length", String(base.length)), ("size", String(base.size)), ("sha256", quoted(hash)),
        ]
        let jpegLimit = MediaType.jpeg.maximumLength
        let largeVideo = MediaType.mpeg4Video.maximumLength
        let cases: [(String, [(String, String?)], String?)] = [
            ("positive vector 0's descriptor", [], nil),
            (
                "the scheme in capitals (schemes are case-insensitive)",
                [("url", quoted("HTTPS://cdn.example.com/v/0.psm"))], nil
            ),
            (
                "a length at the type's limit",
                [("length", "\(jpegLimit)"), ("size", "\(MediaObject.objectSize(length: jpegLimit))")], nil
            ),
            (
                "a member order of its own",
                [("sha256", nil), ("url", nil), ("sha256", quoted(hash)), ("url", quoted(base.url))], nil
            ),
            (
                "another member comes first: before an http url",
                [("url", quoted("http://cdn.example.com/v/0.psm")), ("note", quoted("x"))], "media-integrity"
            ),
            (
                "the url comes before the key",
                [("url", quoted("http://cdn.example.com/v/0.psm")), ("key", quoted("AAAA"))], "media-insecure-url"
            ),
            ("a url with an empty host", [("url", quoted("https:///v/0.psm"))], "media-insecure-url"),
            ("a url that is not a string", [("url", "1")], "media-integrity"),
            ("no url", [("url", nil)], "media-integrity"),
            (
                "the key comes before the length's limit",
                [("key", quoted(key + "=")), ("length", "\(jpegLimit + 1)")], "media-integrity"
            ),
            (
                "a key of 31 bytes", [("key", quoted(Base64URL.encode([UInt8](repeating: 7, count: 31))))],
                "media-integrity"
            ),
            (
                "a type in capitals (types are compared byte for byte)", [("type", quoted("IMAGE/JPEG"))],
                "media-integrity"
            ),
            ("a type media-v1 does not have", [("type", quoted("image/heic"))], "media-integrity"),
            (
                "the type comes before the length's limit",
                [("type", quoted("image/webp")), ("length", "\(jpegLimit + 1)")], "media-integrity"
            ),
            ("a length of 0", [("length", "0"), ("size", "36")], "media-integrity"),
            ("a length of -0, which is 0", [("length", "-0")], "media-integrity"),
            ("a negative length", [("length", "-1")], "media-integrity"),
            ("a length of -2^64", [("length", "-18446744073709551616")], "media-integrity"),
            ("a length with a fraction", [("length", "3.0")], "media-integrity"),
            ("a length with an exponent", [("length", "3e0")], "media-integrity"),
            ("a length in a string", [("length", quoted("3"))], "media-integrity"),
            (
                "one byte over the type's limit: the limit comes before the size", [("length", "\(jpegLimit + 1)")],
                "media-too-large"
            ),
            ("a length of 2^63: over every limit", [("length", "9223372036854775808")], "media-too-large"),
            ("a length of 2^64: over every limit", [("length", "18446744073709551616")], "media-too-large"),
            (
                "a video over the image limit is within its own",
                [
                    ("type", quoted("video/mp4")), ("length", "\(jpegLimit + 1)"),
                    ("size", "\(MediaObject.objectSize(length: jpegLimit + 1))"),
                ], nil
            ),
            (
                "a video over its limit", [("type", quoted("video/mp4")), ("length", "\(largeVideo + 1)")],
                "media-too-large"
            ),
            (
                "the limit comes before the sha256", [("length", "\(jpegLimit + 1)"), ("sha256", quoted("x"))],
                "media-too-large"
            ),
            ("a size one byte over", [("size", "\(base.size + 1)")], "media-integrity"),
            ("a size with a fraction", [("size", "\(base.size).0")], "media-integrity"),
            ("a size of 2^64", [("size", "18446744073709551616")], "media-integrity"),
            ("the size comes before the sha256", [("size", "1"), ("sha256", nil)], "media-integrity"),
            ("a sha256 with padding (not canonical base64url)", [("sha256", quoted(hash + "="))], "media-integrity"),
            ("no sha256", [("sha256", nil)], "media-integrity"),
        ]
        return cases.map { comment, edits, reason in
            var text = members
            for (name, value) in edits {
                if let index = text.firstIndex(where: { $0.0 == name }) {
                    if let value { text[index].1 = value } else { text.remove(at: index) }
                } else if let value {
                    text.append((name, value))
                }
            }
            let json = "{" + text.map { "\(quoted($0.0)):\($0.1)" }.joined(separator: ",") + "}"
            return .object(
                JSONObject([
                    ("comment", .string(comment)), ("descriptor_text", .string(json)),
                    ("reason", reason.map { .string($0) } ?? .null),
                ]))
        }
    }

    /// First bytes, each with the type they show (`null`: none, so a sealer refuses the file and an
    /// opener refuses it whatever type is declared).
    static let sniffCases: [(String, [UInt8], String?)] = [
        ("JPEG", [0xFF, 0xD8, 0xFF, 0xE0], "image/jpeg"),
        ("PNG", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "image/png"),
        ("GIF87a", Array("GIF87a".utf8), "image/gif"),
        ("GIF89a", Array("GIF89a".utf8), "image/gif"),
        ("AIFF", Array("FORM\0\0\0\u{4}AIFF".utf8), "audio/aiff"),
        ("AIFF-C", Array("FORM\0\0\0\u{4}AIFC".utf8), "audio/aiff"),
        ("WAV", Array("RIFF\u{4}\0\0\0WAVE".utf8), "audio/wav"),
        ("AVI", Array("RIFF\u{4}\0\0\0AVI ".utf8), "video/avi"),
        ("WebP", Array("RIFF\u{4}\0\0\0WEBP".utf8), nil),
        ("MP3 with an ID3 tag", Array("ID3\u{4}\0".utf8), "audio/mpeg"),
        ("MPEG-1 layer III frame, 128 kbit/s, 44.1 kHz", [0xFF, 0xFB, 0x90, 0x64], "audio/mpeg"),
        ("MPEG-2.5 layer III frame", [0xFF, 0xE3, 0x18, 0xC4], "audio/mpeg"),
        ("frame sync with the reserved version 01", [0xFF, 0xEB, 0x90, 0x64], nil),
        ("frame sync with the reserved layer 00", [0xFF, 0xF9, 0x90, 0x64], nil),
        ("frame sync with the bad bitrate index 1111", [0xFF, 0xFB, 0xF0, 0x64], nil),
        ("frame sync with the reserved sampling rate 11", [0xFF, 0xFB, 0x9C, 0x64], nil),
        ("a frame sync cut after 2 bytes", [0xFF, 0xFB], nil),
        ("MPEG program stream", [0x00, 0x00, 0x01, 0xBA, 0x44, 0x00], "video/mpeg"),
        ("MPEG video sequence header", [0x00, 0x00, 0x01, 0xB3, 0x16, 0x00], "video/mpeg"),
        ("ISO-BMFF, major brand isom", box(24, "isom"), "video/mp4"),
        ("ISO-BMFF, major brand M4A ", box(32, "M4A "), "audio/mp4"),
        (
            "ISO-BMFF, major brand mp42 with heic compatible: the major brand decides",
            box(24, "mp42") + Array("heic".utf8), "video/mp4"
        ),
        ("ISO-BMFF, ftyp box of the largest size", box(4_096, "mp42"), "video/mp4"),
        ("ISO-BMFF, ftyp box of 4100 bytes", box(4_100, "mp42"), nil),
        ("ISO-BMFF, ftyp box of 0 bytes", box(0, "mp42"), nil),
        ("ISO-BMFF, ftyp box of 8 bytes", box(8, "mp42"), nil),
        ("ISO-BMFF, ftyp box of 18 bytes (not a multiple of 4)", box(18, "mp42"), nil),
        (
            "an MPEG pack start code with ftyp at 4 is ISO-BMFF, and its box size 442 is not",
            [0x00, 0x00, 0x01, 0xBA] + Array("ftypisom".utf8), nil
        ),
        (
            "an MPEG sequence start code with ftyp at 4 and brand heic",
            [0x00, 0x00, 0x01, 0xB3] + Array("ftypheic".utf8), nil
        ),
        ("HEIC", box(24, "heic"), nil),
        ("HEIF", box(24, "mif1"), nil),
        ("AVIF", box(24, "avif"), nil),
        ("QuickTime with ftyp", box(20, "qt  "), nil),
        ("QuickTime without ftyp", [0x00, 0x00, 0x00, 0x20] + Array("moov".utf8), nil),
        ("ISO-BMFF of an unknown major brand", box(24, "3gp4"), nil),
        ("PDF", Array("%PDF-1.7".utf8), nil),
        ("no bytes", [], nil),
    ]

    /// An `ftyp` box header of `size` bytes with the major brand `brand` and minor version 0.
    static func box(_ size: Int, _ brand: String) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: size >> (24 - 8 * $0)) } + Array("ftyp\(brand)".utf8) + [0, 0, 0, 0]
    }

    static func quoted(_ text: String) -> String { JSONWriter.string(.string(text)) }

    /// An object of `type` and `length` whose plaintext stream is `stream` as given (padding and
    /// all), so that a vector can hold what no sealer makes: non-zero padding.
    static func rawObject(stream: [UInt8], type: MediaType, length: Int, index: Int) throws -> (JSONObject, [UInt8]) {
        let key = (0..<32).map { UInt8(truncatingIfNeeded: $0 * 5 + index) }
        let salt = (0..<32).map { UInt8(truncatingIfNeeded: 128 + $0 + index) }
        let streamKey = try MediaObject.streamKey(objectKey: SecretBytes(copying: key), salt: salt)
        let aad = MediaObject.associatedData(type: type, length: length)
        let chunks = MediaObject.chunkCount(paddedLength: stream.count)
        var object = MediaObject.magic + salt
        for chunk in 0..<chunks {
            let piece = stream[
                (chunk * MediaObject.chunkByteCount)..<min(stream.count, (chunk + 1) * MediaObject.chunkByteCount)]
            object += try AEAD.chaCha20Poly1305.seal(
                key: streamKey, nonce: MediaObject.nonce(index: chunk, final: chunk == chunks - 1), aad: aad,
                plaintext: Array(piece))
        }
        let descriptor = JSONObject([
            ("url", .string("https://cdn.example.com/v/\(index).psm")), ("key", .string(Base64URL.encode(key))),
            ("type", .string(type.name)), ("length", .number(JSONNumber(length))),
            ("size", .number(JSONNumber(object.count))), ("sha256", .string(Base64URL.encode(SHA256.hash(object)))),
        ])
        return (descriptor, object)
    }
}
