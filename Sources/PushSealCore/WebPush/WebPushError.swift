/// Why a Web Push subscription, message or seal was refused: a stable ``reason`` (webpush-v1.md,
/// "Refusals") and a ``detail`` that names what is wrong and where, never key bytes or plaintext.
///
/// Two errors are equal when their reasons are, as ``PushSealError``'s are.
public struct WebPushError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The machine-readable reason, e.g. `missing-delimiter`.
    public let reason: Reason
    /// A human-readable explanation naming what is wrong and where.
    public let detail: String
    /// For an invalid subscription, the member at fault as its JSON names it (`endpoint`,
    /// `keys.p256dh`, `keys.auth`, `keys`), when one is.
    public let member: String?

    /// An error for `reason`, explained by `detail`, about `member` when there is one.
    public init(_ reason: Reason, _ detail: String, member: String? = nil) {
        self.reason = reason
        self.detail = detail
        self.member = member
    }

    /// A readable form that never shows key material.
    public var description: String { "\(reason): \(detail)" }

    /// Equality as documented on the type.
    public static func == (lhs: WebPushError, rhs: WebPushError) -> Bool { lhs.reason == rhs.reason }

    /// Hashes what equality compares.
    public func hash(into hasher: inout Hasher) { hasher.combine(reason) }

    /// A stable reason; its `rawValue` is the string webpush-v1.md and the CLI's output use.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        /// The reason as written in output.
        public let rawValue: String

        private init(_ rawValue: String) { self.rawValue = rawValue }

        /// A readable form.
        public var description: String { rawValue }

        /// The subscription is not `{endpoint, keys: {p256dh, auth}}` with an https endpoint, a
        /// P-256 point on the curve and a 16-byte authentication secret.
        public static let invalidSubscription = Reason("invalid-subscription")
        /// The receiver's keys (the subscription's private key and authentication secret) are not usable.
        public static let invalidReceiverKey = Reason("invalid-receiver-key")
        /// The content does not fit one record of a 4,096-byte message, or a message to open is
        /// longer than 4,096 bytes.
        public static let messageTooLarge = Reason("message-too-large")
        /// The `aes128gcm` header is shorter than 21 bytes plus its key id, or the key id is not
        /// 65 bytes long (RFC 8291 puts the sender's uncompressed P-256 point there).
        public static let malformedHeader = Reason("malformed-header")
        /// The key id is 65 bytes long but is not a point on P-256.
        public static let invalidSenderKey = Reason("invalid-sender-key")
        /// The header's record size is below 18, the smallest RFC 8188 allows.
        public static let invalidRecordSize = Reason("invalid-record-size")
        /// The bytes after the header are longer than the record size: a second record, where a
        /// Web Push message holds exactly one (RFC 8291 §4).
        public static let multipleRecords = Reason("multiple-records")
        /// The record does not authenticate: wrong keys, a wrong authentication secret, or bytes
        /// changed on the way. Deliberately one reason, whatever the cause.
        public static let decryptionFailed = Reason("decryption-failed")
        /// The decrypted record holds no padding delimiter: no byte 0x02 at all, or only zeros.
        public static let missingDelimiter = Reason("missing-delimiter")
        /// The record's delimiter is 0x01, which marks a record that is not the last one.
        public static let misplacedDelimiter = Reason("misplaced-delimiter")
        /// Bytes other than zero follow the record's last 0x02 delimiter; in a legacy `aesgcm`
        /// record, the padding its length announces holds a byte other than zero.
        public static let nonZeroPadding = Reason("nonzero-padding")
        /// A legacy `aesgcm` record's two-byte padding length is more than the bytes after it,
        /// or the record is too short to hold that length at all.
        public static let paddingTooLong = Reason("padding-too-long")
        /// The crypto library failed while sealing (it reports nothing about the inputs).
        public static let cryptoFailure = Reason("crypto-failure")
    }
}
