internal import PushSealPrimitives

/// Where sealed content too large for an APNs payload waits (envelope-v1.md, "Fetched content"):
/// the `fetch` member of decrypted content. The push carries this reference sealed to the device;
/// the content itself, sealed to the device as well, waits on the gateway until fetched or
/// expired, and is served only to the request that presents its capability.
///
/// ```json
/// {"aps": {"alert": {"title": "New notification", "body": "Open the app to view it."}},
///  "fetch": {"url": "https://push.example.com/v1/fetch/<id>", "capability": "<32 bytes>",
///            "expires": 1796000000, "size": 3980, "sha256": "<32 bytes>", "format": "webpush"}}
/// ```
///
/// The capability never leaves this type except in ``json`` (which goes into sealed content) and
/// ``authorization`` (which goes to the URL alone).
public struct FetchReference: Sendable, CustomStringConvertible {
    /// What the fetched bytes are, and so how they open.
    public enum Format: String, Sendable, CaseIterable {
        /// An RFC 8291 `aes128gcm` message a Web Push sender posted to the relay: it opens with
        /// the store's Web Push receiver, as a forwarded message does.
        case webPush = "webpush"
        /// A legacy `aesgcm` message's frame (``AESGCMMessage``; from 1.4.0): it opens with the
        /// store's Web Push receiver, as one forwarded under `webpush_aesgcm` does.
        case webPushAESGCM = "webpush-aesgcm"
        /// A binary envelope (envelope-v1.md), not base64url: it opens with the store's keys,
        /// as `enc` does, and its content is never a reference itself.
        case envelope
    }

    /// Where the content is; always `https:`, under the media URL rule.
    public let url: String
    /// The bearer capability that alone fetches it: 32 random bytes.
    let capability: SecretBytes
    /// When it stops being served, in UNIX seconds.
    public let expires: Int64
    /// The content's exact length in bytes.
    public let size: Int
    /// SHA-256 of the content.
    public let sha256: [UInt8]
    /// How the content opens.
    public let format: Format

    /// The member of decrypted content that holds a reference.
    public static let member = "fetch"
    /// The members of a reference.
    static let members = ["url", "capability", "expires", "size", "sha256", "format"]
    /// The largest content a reference may name: 64 KiB, far above the gateway's own bound, so
    /// that the device never holds more than this in memory for one notification.
    public static let maximumSize = 65_536

    /// A reference to `content`, to be served at `url` until `expires`, with a fresh random
    /// capability: the reference (to seal into the push), and the capability's hash
    /// (as `capabilityHash(bearer:)` makes it), which is all the server keeps of it.
    /// - Throws: `malformed-content` for a URL the media URL rule refuses, content empty or over
    ///   ``maximumSize``, or an `expires` that is not positive.
    package static func make(url: String, expires: Int64, content: [UInt8], format: Format) throws(PushSealError)
        -> (reference: FetchReference, capabilityHash: [UInt8])
    {
        try BearerReferenceMembers.checkURL(url, malformed: malformed)
        try checkSize(content.count)
        try checkExpires(expires)
        let capability = SecretBytes(randomCount: 32)
        let reference = FetchReference(
            url: url, capability: capability, expires: expires, size: content.count, sha256: SHA256.hash(content),
            format: format)
        return (reference, SHA256.hash(capability))
    }

    /// What a server keeps of a capability: the SHA-256 of its 32 bytes; nil for a bearer token
    /// that is not 32 bytes in base64url.
    package static func capabilityHash(bearer: String) -> [UInt8]? {
        guard bearer.utf8.count == 43, let capability = Base64URL.decodeSecret(bearer), capability.count == 32 else {
            return nil
        }
        return SHA256.hash(capability)
    }

    /// A reference to `size` bytes whose SHA-256 is `sha256`, served at `url` to `capability`
    /// until `expires`: values already checked.
    private init(
        url: String, capability: SecretBytes, expires: Int64, size: Int, sha256: [UInt8], format: Format
    ) {
        self.url = url
        self.capability = capability
        self.expires = expires
        self.size = size
        self.sha256 = sha256
        self.format = format
    }

    /// Reads and checks the `fetch` member of decrypted content, in this order: other members,
    /// `url`, `capability`, `expires`, `size`, `sha256`, `format`. The first check that fails
    /// gives the detail.
    /// - Throws: `malformed-content`, naming the member.
    public init(json value: JSONValue) throws(PushSealError) {
        guard let json = value.objectValue else {
            throw PushSealError(.malformedContent, "$.\(Self.member) must be an object, not \(value.typeName)")
        }
        if let name = json.firstMember(notIn: Self.members) {
            throw Self.malformed(name, "is not a member of a fetch reference")
        }
        let url = try BearerReferenceMembers.url(json, malformed: Self.malformed)
        let capability = try BearerReferenceMembers.capability(json, byteCount: 32, malformed: Self.malformed)
        guard case .value(let expires) = JSONIntegerMember(json["expires"]) else {
            throw Self.malformed("expires", Self.expiresRule)
        }
        try Self.checkExpires(Int64(expires))
        guard case .value(let size) = JSONIntegerMember(json["size"]) else {
            throw Self.malformed("size", Self.sizeRule)
        }
        try Self.checkSize(size)
        guard let hashText = json["sha256"]?.stringValue, let hash = Base64URL.decode(hashText), hash.count == 32 else {
            throw Self.malformed("sha256", "must be 32 bytes of base64url")
        }
        guard let formatName = json["format"]?.stringValue, let format = Format(rawValue: formatName) else {
            throw Self.malformed("format", "must be \"webpush\", \"webpush-aesgcm\" or \"envelope\"")
        }
        self.init(
            url: url, capability: capability, expires: Int64(expires), size: size, sha256: hash, format: format)
    }

    /// The reference in `content` (decrypted content), or nil when it has no ``member``.
    /// - Throws: `malformed-content` for a `fetch` member that is no reference.
    public static func reference(in content: JSONObject) throws(PushSealError) -> FetchReference? {
        guard let value = content[member] else { return nil }
        return try FetchReference(json: value)
    }

    /// The reference as it goes into sealed content (with the capability: seal it, never log it).
    public var json: JSONObject {
        JSONObject([
            ("url", .string(url)), ("capability", .string(Base64URL.encodeSecret(capability))),
            ("expires", .number(JSONNumber(Int(expires)))), ("size", .number(JSONNumber(size))),
            ("sha256", .string(Base64URL.encode(sha256))), ("format", .string(format.rawValue)),
        ])
    }

    /// The `Authorization` header's value that fetches the content: `Bearer <capability>`.
    public var authorization: String { "Bearer \(Base64URL.encodeSecret(capability))" }

    /// Whether `content` is what this reference names: its size, then its SHA-256.
    /// - Throws: `fetch-integrity`, naming which.
    public func check(_ content: [UInt8]) throws(PushSealError) {
        guard content.count == size else {
            throw PushSealError(.fetchIntegrity, "the content is \(content.count) bytes, not the \(size) referenced")
        }
        guard ConstantTime.equals(SHA256.hash(content), sha256) else {
            throw PushSealError(.fetchIntegrity, "the content's SHA-256 is not the one referenced")
        }
    }

    /// A readable form without the capability.
    public var description: String { "FetchReference(\(format.rawValue), \(size) bytes, \(url), expires \(expires))" }

    private static let expiresRule = "must be a positive integer (UNIX seconds)"
    private static let sizeRule = "must be an integer from 1 to \(maximumSize)"

    private static func checkExpires(_ expires: Int64) throws(PushSealError) {
        guard expires > 0 else { throw malformed("expires", expiresRule) }
    }

    private static func checkSize(_ size: Int) throws(PushSealError) {
        guard (1...maximumSize).contains(size) else { throw malformed("size", sizeRule) }
    }

    private static func malformed(_ name: String, _ detail: String) -> PushSealError {
        PushSealError(.malformedContent, "\(JSONPath.root.member(member).member(name)) \(detail)")
    }
}
