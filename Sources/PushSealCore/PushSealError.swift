/// An error with a stable code: the reasons of envelope v1, plus the codes of key and payload
/// validation. Two errors are equal when their codes are, which keeps tests simple.
///
/// The ``detail`` names what is wrong and where, and never holds key bytes or plaintext.
public struct PushSealError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The machine-readable code, e.g. `decryption-failed`.
    public let code: Code
    /// A human-readable explanation naming what is wrong and where.
    public let detail: String

    /// An error with `code`, explained by `detail`.
    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    /// A readable form that never shows key material.
    public var description: String { "\(code): \(detail)" }

    /// Equality as documented on the type.
    public static func == (lhs: PushSealError, rhs: PushSealError) -> Bool { lhs.code == rhs.code }

    /// Hashes what equality compares.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// A stable error code; its `rawValue` is the reason string of envelope-v1.md.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The reason as written on the wire and in CLI output.
        public let rawValue: String

        private init(_ rawValue: String) { self.rawValue = rawValue }

        /// A readable form that never shows key material.
        public var description: String { rawValue }

        /// The envelope is not base64url, or its header is truncated or has a bad length or mode.
        public static let malformedEnvelope = Code("malformed-envelope")
        /// The envelope's version byte is not 1.
        public static let unsupportedVersion = Code("unsupported-version")
        /// The envelope's suite byte is not 1, 2 or 3.
        public static let unsupportedSuite = Code("unsupported-suite")
        /// No key in the store has the envelope's `kid` for its suite.
        public static let unknownKey = Code("unknown-key")
        /// An auth-mode envelope's `skid` is not a trusted sender of its suite.
        public static let untrustedSender = Code("untrusted-sender")
        /// The store pins senders for the suite, and the envelope is in base mode.
        public static let authenticationRequired = Code("authentication-required")
        /// Any AEAD or KEM failure; deliberately one code, so it cannot serve as an oracle.
        public static let decryptionFailed = Code("decryption-failed")
        /// Bad padding, invalid UTF-8, or content that is not a JSON object.
        public static let malformedContent = Code("malformed-content")
        /// The key store is missing, unreadable or has unsafe permissions.
        public static let keyStoreUnavailable = Code("key-store-unavailable")
        /// The key store's files are protected until the device's first unlock after a restart
        /// (iOS data protection refused the read with `EPERM`): the store is intact, and opens
        /// once the phone has been unlocked.
        public static let keyStoreLocked = Code("key-store-locked")
        /// The payload has no envelope, and the store requires sealed payloads: the neutral text
        /// of the store's policy is shown instead, with none of the payload's members.
        public static let notSealed = Code("not-sealed")
        /// The extension's time ran out before the content was ready.
        public static let timeout = Code("timeout")
        /// Decrypted content referred to content to fetch (envelope-v1.md, "Fetched content"),
        /// and the fetch failed: no connection, TLS, a local destination, an answer other than
        /// 200 or 404.
        public static let fetchFailed = Code("fetch-failed")
        /// The fetched content is not the one referenced: another length, another SHA-256.
        public static let fetchIntegrity = Code("fetch-integrity")
        /// The referenced content is gone: past the reference's `expires`, or the gateway
        /// answered 404 (fetched and deleted, expired, or deleted after wrong capabilities).
        public static let fetchExpired = Code("fetch-expired")
        /// A key (JWK) is malformed or inconsistent.
        public static let invalidKey = Code("invalid-key")
        /// A payload to seal breaks Apple's rules.
        public static let invalidPayload = Code("invalid-payload")
        /// A payload cannot fit APNs' size limit.
        public static let payloadTooLarge = Code("payload-too-large")
    }
}
