/// The media types a notification can attach, with Apple's size limits, the attachment's file
/// extension, and the magic bytes that identify each (media-v1.md, "Types").
public struct MediaType: Sendable, Hashable, CustomStringConvertible {
    /// The MIME type, as in a descriptor's `type`.
    public let name: String
    /// The attachment file's extension.
    public let fileExtension: String
    /// Apple's limit for the kind (image, audio, video), in bytes.
    public let maximumLength: Int

    private init(_ name: String, _ fileExtension: String, _ maximumLength: Int) {
        self.name = name
        self.fileExtension = fileExtension
        self.maximumLength = maximumLength
    }

    static let imageLimit = 10_000_000
    static let audioLimit = 5_000_000
    static let videoLimit = 50_000_000

    /// JPEG.
    public static let jpeg = MediaType("image/jpeg", "jpg", imageLimit)
    /// PNG.
    public static let png = MediaType("image/png", "png", imageLimit)
    /// GIF.
    public static let gif = MediaType("image/gif", "gif", imageLimit)
    /// AIFF (and AIFF-C).
    public static let aiff = MediaType("audio/aiff", "aiff", audioLimit)
    /// WAV.
    public static let wav = MediaType("audio/wav", "wav", audioLimit)
    /// MP3.
    public static let mp3 = MediaType("audio/mpeg", "mp3", audioLimit)
    /// MPEG-4 audio.
    public static let mpeg4Audio = MediaType("audio/mp4", "m4a", audioLimit)
    /// MPEG-1 or MPEG-2 video.
    public static let mpegVideo = MediaType("video/mpeg", "mpg", videoLimit)
    /// MPEG-4 video.
    public static let mpeg4Video = MediaType("video/mp4", "mp4", videoLimit)
    /// AVI.
    public static let avi = MediaType("video/avi", "avi", videoLimit)

    /// Every type of media-v1.
    public static let all: [MediaType] = [
        .jpeg, .png, .gif, .aiff, .wav, .mp3, .mpeg4Audio, .mpegVideo, .mpeg4Video, .avi,
    ]

    /// The type named `name` (byte for byte), if media-v1 has it.
    public init?(name: String) {
        guard let type = Self.all.first(where: { $0.name.isExactly(name) }) else { return nil }
        self = type
    }

    /// The MIME type.
    public var description: String { name }

    /// How many leading bytes ``sniff(_:)`` needs at most.
    public static let sniffLength = 16

    /// The type the first bytes of a file show.
    /// - Throws: `PushSealError.Code.invalidPayload` for a format Apple does not attach (HEIC,
    ///   WebP, QuickTime: transcode it) or an unknown one.
    public static func sniff(_ head: some Collection<UInt8>) throws -> MediaType {
        let bytes = Array(head.prefix(sniffLength))
        func at(_ offset: Int, _ text: String) -> Bool {
            let expected = Array(text.utf8)
            return bytes.count >= offset + expected.count
                && Array(bytes[offset..<(offset + expected.count)]) == expected
        }
        func starts(_ magic: [UInt8]) -> Bool { bytes.starts(with: magic) }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if at(0, "GIF87a") || at(0, "GIF89a") { return .gif }
        if at(0, "FORM") && (at(8, "AIFF") || at(8, "AIFC")) { return .aiff }
        if at(0, "RIFF") && at(8, "WAVE") { return .wav }
        if at(0, "RIFF") && at(8, "AVI ") { return .avi }
        if at(0, "RIFF") && at(8, "WEBP") { throw unsupported("WebP") }
        if at(0, "ID3") { return .mp3 }
        if bytes.count >= 2, bytes[0] == 0xFF, bytes[1] & 0xE0 == 0xE0, bytes[1] & 0x06 != 0 { return .mp3 }
        if starts([0x00, 0x00, 0x01, 0xBA]) || starts([0x00, 0x00, 0x01, 0xB3]) { return .mpegVideo }
        if at(4, "ftyp"), bytes.count >= 12 {
            let brand = String(decoding: bytes[8..<12], as: UTF8.self)
            switch ExactText(brand) {
            case "M4A ", "M4B ", "M4P ": return .mpeg4Audio
            case "isom", "iso2", "iso4", "iso5", "mp41", "mp42", "avc1", "M4V ", "dash": return .mpeg4Video
            case "heic", "heix", "hevc", "hevx", "mif1", "msf1", "avif": throw unsupported("HEIC/HEIF/AVIF")
            case "qt  ": throw unsupported("QuickTime (MOV)")
            default: break
            }
        }
        if at(4, "moov") || at(4, "mdat") || at(4, "wide") || at(4, "free") { throw unsupported("QuickTime (MOV)") }
        throw PushSealError(
            .invalidPayload,
            "the file is not a type a notification can attach (JPEG, PNG, GIF, AIFF, WAV, MP3, MPEG-4 audio, MPEG, MPEG-4 video, AVI)"
        )
    }

    private static func unsupported(_ format: String) -> PushSealError {
        PushSealError(
            .invalidPayload,
            "\(format) cannot be attached to a notification: transcode it (to JPEG or PNG for an image, MPEG-4 for audio or video)"
        )
    }
}
