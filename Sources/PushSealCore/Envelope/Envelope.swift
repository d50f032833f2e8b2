internal import PushSealPrimitives

/// A binary envelope: the header, then the AEAD ciphertext with its 16-byte tag.
///
/// See `docs/envelope-v1.md` for the format. Carried in the outer payload's `enc` member as
/// base64url without padding.
public struct Envelope: Sendable, Hashable {
    /// The length of the AEAD tag every suite appends.
    public static let tagByteCount = 16

    /// The header.
    public let header: EnvelopeHeader
    /// The sealed padded plaintext followed by the tag.
    public let ciphertext: [UInt8]
    /// The header's encoding, which is also the AEAD's associated data; kept so that it is
    /// built once per message.
    let headerBytes: [UInt8]

    init(header: EnvelopeHeader, headerBytes: [UInt8], ciphertext: [UInt8]) {
        self.header = header
        self.headerBytes = headerBytes
        self.ciphertext = ciphertext
    }

    /// Parses a binary envelope.
    /// - Throws: ``PushSealError`` with `malformed-envelope`, `unsupported-version` or `unsupported-suite`.
    public init(bytes: [UInt8]) throws {
        let (header, headerCount) = try EnvelopeHeader.parse(bytes)
        guard bytes.count - headerCount >= Self.tagByteCount else {
            throw PushSealError(
                .malformedEnvelope,
                "the ciphertext after the \(headerCount)-byte header has \(bytes.count - headerCount) bytes, "
                    + "fewer than the \(Self.tagByteCount)-byte tag")
        }
        self.header = header
        self.headerBytes = Array(bytes[..<headerCount])
        self.ciphertext = Array(bytes[headerCount...])
    }

    /// Parses the base64url text of an outer payload's `enc` member.
    public init(base64URL text: String) throws {
        guard let bytes = Base64URL.decode(text) else {
            throw PushSealError(.malformedEnvelope, "\"enc\" is not base64url without padding")
        }
        try self.init(bytes: bytes)
    }

    /// The binary envelope.
    public var bytes: [UInt8] { headerBytes + ciphertext }

    /// The envelope as base64url without padding.
    public var base64URL: String { Base64URL.encode(bytes) }

    /// Appends the envelope's base64url text to `output`, without an intermediate string.
    public func appendBase64URL(to output: inout [UInt8]) {
        Base64URL.encode(bytes, into: &output)
    }

    /// Two envelopes are equal when their bytes are.
    public static func == (lhs: Envelope, rhs: Envelope) -> Bool {
        lhs.headerBytes == rhs.headerBytes && lhs.ciphertext == rhs.ciphertext
    }

    /// Hashes the bytes.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(headerBytes)
        hasher.combine(ciphertext)
    }

    /// The length of the base64url text of an envelope of `byteCount` bytes.
    public static func base64URLCount(ofByteCount byteCount: Int) -> Int {
        Base64URL.encodedCount(byteCount)
    }

    /// The length of everything but the padded plaintext: header and tag.
    public static func overhead(suite: EnvelopeSuite, kid: String, skid: String?) -> Int {
        EnvelopeHeader.byteCount(suite: suite, kid: kid, skid: skid) + tagByteCount
    }
}
