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
}
