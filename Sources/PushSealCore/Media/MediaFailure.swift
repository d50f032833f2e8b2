/// Why a media attachment could not be used (media-v1.md, "Failures"). The notification still
/// shows its decrypted text, without the attachment. Two failures are equal when their reasons
/// are.
public struct MediaFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable reason, as the CLI prints it.
    public struct Reason: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The reason's text, e.g. `media-integrity`.
        public let rawValue: String

        /// A reason with this text.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The reason's text.
        public var description: String { rawValue }

        /// The URL, or a redirect, is not `https:`.
        public static let insecureURL = Reason(rawValue: "media-insecure-url")
        /// The URL's host, or a redirect's, resolves only to local addresses (loopback, private,
        /// link-local, unique-local), which a CDN must not make the device reach.
        public static let localDestination = Reason(rawValue: "media-local-destination")
        /// No answer, a status other than 200, a TLS failure, too many redirects.
        public static let unreachable = Reason(rawValue: "media-unreachable")
        /// Over the type's limit, or more bytes than the descriptor's `size`.
        public static let tooLarge = Reason(rawValue: "media-too-large")
        /// A malformed descriptor or object, a hash mismatch, a chunk that does not open.
        public static let integrity = Reason(rawValue: "media-integrity")
        /// The decrypted bytes are not of the declared type.
        public static let typeMismatch = Reason(rawValue: "media-type-mismatch")
        /// The deadline passed before the object was opened.
        public static let timeout = Reason(rawValue: "media-timeout")
    }

    /// The reason.
    public let reason: Reason
    /// What happened, for people; never key bytes or content.
    public let detail: String

    /// A failure with `reason`, explained by `detail`.
    public init(_ reason: Reason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    /// `reason: detail`.
    public var description: String { "\(reason): \(detail)" }

    /// Equality of the reasons.
    public static func == (lhs: MediaFailure, rhs: MediaFailure) -> Bool { lhs.reason == rhs.reason }

    /// Hashes what equality compares.
    public func hash(into hasher: inout Hasher) { hasher.combine(reason) }
}
