internal import PushSealPrimitives
internal import PushSealURL

/// What the sealed content says of a media object: where it is, its key, its type, its length,
/// its size and its SHA-256 (media-v1.md, "Descriptor"). The key never leaves this type except
/// in ``json``, which goes into sealed content.
public struct MediaDescriptor: Sendable, CustomStringConvertible {
    /// Where the object is; always `https:`.
    public let url: String
    /// The media type.
    public let type: MediaType
    /// The media's length, before padding.
    public let length: Int
    /// The object's length.
    public let size: Int
    /// SHA-256 of the whole object.
    public let sha256: [UInt8]
    /// The object key.
    let key: SecretBytes

    /// The members of a descriptor.
    static let members = ["url", "key", "type", "length", "size", "sha256"]

    init(url: String, key: SecretBytes, type: MediaType, length: Int, sha256: [UInt8]) {
        self.url = url
        self.key = key
        self.type = type
        self.length = length
        self.size = MediaObject.objectSize(length: length)
        self.sha256 = sha256
    }

    /// Reads and checks a descriptor (the `media` member of decrypted content), in media-v1's
    /// order: other members, `url`, `key`, `type`, `length`, the type's limit, `size`, `sha256`.
    /// The first check that fails gives the reason.
    /// - Throws: ``MediaFailure`` with `media-insecure-url`, `media-too-large` or
    ///   `media-integrity`, naming the member.
    public init(json: JSONObject) throws(MediaFailure) {
        if let name = json.firstMember(notIn: Self.members) {
            throw MediaFailure(.integrity, "\(JSONPath.root.member("media").member(name)) is not a descriptor member")
        }
        guard let url = json["url"]?.stringValue else { throw MediaFailure(.integrity, "$.media.url must be a string") }
        try Self.checkURL(url)
        guard let keyText = json["key"]?.stringValue, let key = Base64URL.decodeSecret(keyText), key.count == 32 else {
            throw MediaFailure(.integrity, "$.media.key must be 32 bytes of base64url")
        }
        guard let typeName = json["type"]?.stringValue, let type = MediaType(name: typeName) else {
            throw MediaFailure(.integrity, "$.media.type is not a media type of media-v1")
        }
        let length: Int
        switch JSONIntegerMember(json["length"]) {
        case .value(let value) where value >= 1 && value <= type.maximumLength: length = value
        case .value(1...), .overflow:
            let text = json["length"]?.numberValue?.literal ?? ""
            throw MediaFailure(.tooLarge, "\(type) is limited to \(type.maximumLength) bytes, not \(text)")
        default:
            throw MediaFailure(.integrity, "$.media.length must be an integer from 1 to \(type.maximumLength)")
        }
        guard case .value(let size) = JSONIntegerMember(json["size"]), size == MediaObject.objectSize(length: length)
        else {
            throw MediaFailure(
                .integrity, "$.media.size must be the integer \(MediaObject.objectSize(length: length)) for this length"
            )
        }
        guard let hashText = json["sha256"]?.stringValue, let hash = Base64URL.decode(hashText), hash.count == 32 else {
            throw MediaFailure(.integrity, "$.media.sha256 must be 32 bytes of base64url")
        }
        self.init(url: url, key: key, type: type, length: length, sha256: hash)
    }

    /// Checks `url` under the media URL rule (media-v1.md), the one the device's fetcher applies:
    /// https, at most 2048 bytes, printable ASCII, no user info, a port in 1…65535, a host name or
    /// a canonical address. The sealer checks with it before sealing anything.
    /// - Throws: `media-insecure-url`, naming what is wrong.
    public static func checkURL(_ url: String) throws(MediaFailure) {
        guard url.utf8.count <= 2048 else { throw MediaFailure(.insecureURL, "$.media.url is over 2048 bytes") }
        do {
            _ = try HTTPSURL(url)
        } catch {
            throw MediaFailure(.insecureURL, "$.media.url is refused: \(error.detail)")
        }
    }

    /// The descriptor as it goes into sealed content (with the key: seal it, never log it).
    public var json: JSONObject {
        JSONObject([
            ("url", .string(url)), ("key", .string(Base64URL.encodeSecret(key))), ("type", .string(type.name)),
            ("length", .number(JSONNumber(length))), ("size", .number(JSONNumber(size))),
            ("sha256", .string(Base64URL.encode(sha256))),
        ])
    }

    /// The same descriptor at another URL (once the object is uploaded).
    public func at(_ url: String) throws(MediaFailure) -> MediaDescriptor {
        var object = json
        object["url"] = .string(url)
        return try MediaDescriptor(json: object)
    }

    /// A readable form without the key.
    public var description: String { "MediaDescriptor(\(type), \(length) bytes, \(url))" }
}
