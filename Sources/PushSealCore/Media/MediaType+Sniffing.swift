/// Which type a file's first bytes show (media-v1.md, "Types"): the sealer's choice of type, and
/// the opener's last check. The rules are written so that no bytes match two types, and the
/// order in which they are tried cannot change the answer.
extension MediaType {
    /// How many leading bytes ``sniff(_:)`` reads at most.
    public static let sniffLength = 16

    /// The major brands of an ISO-BMFF `ftyp` box that make an MPEG-4 audio file.
    static let audioBrands = ["M4A ", "M4B ", "M4P "]
    /// The major brands that make an MPEG-4 video file.
    static let videoBrands = ["isom", "iso2", "iso4", "iso5", "mp41", "mp42", "avc1", "M4V ", "dash"]
    /// The HEIF family's major brands (HEIC, HEIF image sequences, AVIF): refused.
    static let heifBrands = [
        "heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs", "mif1", "msf1", "avif", "avis",
    ]
    /// The box types that open a QuickTime file written without an `ftyp` box: refused.
    static let quickTimeBoxes = ["moov", "mdat", "wide", "free", "skip", "pnot"]
    /// The `ftyp` box's smallest and largest sizes: 8 bytes of box header, the major brand, the
    /// minor version, and 0 to 1,020 compatible brands of 4 bytes.
    static let fileTypeBoxSizes = 16...4_096

    /// The type the first bytes of a file show.
    ///
    /// A file whose bytes 4 to 7 are `ftyp` is ISO-BMFF and nothing else: its box size must be a
    /// multiple of 4 from 16 to 4096, and its major brand alone decides (compatible
    /// brands are not read). Any other file is tried against the magic bytes of the table.
    /// - Throws: `PushSealError.Code.invalidPayload` for a format Apple does not attach (HEIC,
    ///   HEIF, AVIF, WebP, QuickTime: transcode it), a malformed `ftyp` box, or an unknown format.
    public static func sniff(_ head: some Collection<UInt8>) throws -> MediaType {
        let bytes = Array(head.prefix(sniffLength))
        if bytes.has("ftyp", at: 4) { return try isoMediaType(bytes) }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if bytes.has("GIF87a", at: 0) || bytes.has("GIF89a", at: 0) { return .gif }
        if bytes.has("FORM", at: 0) && (bytes.has("AIFF", at: 8) || bytes.has("AIFC", at: 8)) { return .aiff }
        if bytes.has("RIFF", at: 0) && bytes.has("WAVE", at: 8) { return .wav }
        if bytes.has("RIFF", at: 0) && bytes.has("AVI ", at: 8) { return .avi }
        if bytes.has("ID3", at: 0) || isMPEGAudioFrameHeader(bytes) { return .mp3 }
        if bytes.starts(with: [0x00, 0x00, 0x01, 0xBA]) || bytes.starts(with: [0x00, 0x00, 0x01, 0xB3]) {
            return .mpegVideo
        }
        if bytes.has("RIFF", at: 0) && bytes.has("WEBP", at: 8) { throw unsupported("WebP") }
        if quickTimeBoxes.contains(where: { bytes.has($0, at: 4) }) { throw unsupported("QuickTime (MOV)") }
        throw PushSealError(
            .invalidPayload,
            "the file is not a type a notification can attach (JPEG, PNG, GIF, AIFF, WAV, MP3, MPEG-4 audio, MPEG, MPEG-4 video, AVI)"
        )
    }

    /// The type of an ISO-BMFF file, from its `ftyp` box at offset 0.
    private static func isoMediaType(_ bytes: [UInt8]) throws -> MediaType {
        let boxSize = bytes.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        guard fileTypeBoxSizes.contains(boxSize), boxSize % 4 == 0 else {
            throw PushSealError(
                .invalidPayload,
                "the file's ftyp box is \(boxSize) bytes: an ISO-BMFF ftyp box is a multiple of 4 from 16 to 4096")
        }
        if audioBrands.contains(where: { bytes.has($0, at: 8) }) { return .mpeg4Audio }
        if videoBrands.contains(where: { bytes.has($0, at: 8) }) { return .mpeg4Video }
        if heifBrands.contains(where: { bytes.has($0, at: 8) }) { throw unsupported("HEIC/HEIF/AVIF") }
        if bytes.has("qt  ", at: 8) { throw unsupported("QuickTime (MOV)") }
        throw PushSealError(
            .invalidPayload,
            "the file is ISO-BMFF of a major brand a notification cannot attach: transcode it to MPEG-4")
    }

    /// An MPEG audio frame header: the 11-bit frame sync, a version other than the reserved
    /// `01`, a layer other than the reserved `00`, a bitrate index other than the invalid `1111`
    /// and a sampling-rate index other than the reserved `11`.
    private static func isMPEGAudioFrameHeader(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 3, bytes[0] == 0xFF, bytes[1] & 0xE0 == 0xE0 else { return false }
        let version = (bytes[1] >> 3) & 0x03
        let layer = (bytes[1] >> 1) & 0x03
        let bitrate = bytes[2] >> 4
        let samplingRate = (bytes[2] >> 2) & 0x03
        return version != 0b01 && layer != 0b00 && bitrate != 0b1111 && samplingRate != 0b11
    }

    private static func unsupported(_ format: String) -> PushSealError {
        PushSealError(
            .invalidPayload,
            "\(format) cannot be attached to a notification: transcode it (to JPEG or PNG for an image, MPEG-4 for audio or video)"
        )
    }
}

extension [UInt8] {
    /// True when the ASCII `text` is at `offset`.
    fileprivate func has(_ text: String, at offset: Int) -> Bool {
        let expected = text.utf8
        return count >= offset + expected.count && self[offset..<(offset + expected.count)].elementsEqual(expected)
    }
}
