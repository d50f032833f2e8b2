internal import PushSealPrimitives
internal import PushSealURL

/// A browser's push subscription, as `PushSubscription.toJSON()` gives it:
/// `{"endpoint": …, "keys": {"p256dh": …, "auth": …}}` (RFC 8291 §2 and §3.2).
///
/// Everything in it is checked when it is made: the endpoint is an `https` URL under
/// PushSealURL's rule, `p256dh` an uncompressed P-256 point on the curve (never the identity),
/// and `auth` exactly 16 bytes. The authentication secret is kept in wiped storage and never
/// shown by `description`: with the subscription's public key it is all a sender needs, and
/// RFC 8291 keeps it from the push service.
public struct WebPushSubscription: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The length of the authentication secret (RFC 8291 §3.2).
    public static let authSecretByteCount = 16

    /// The push service's URL for this subscription, exactly as given.
    public let endpoint: String
    /// The parsed endpoint, for the transport.
    let endpointURL: HTTPSURL
    /// The receiver's public key (`ua_public` in RFC 8291).
    let receiverKey: P256.PublicKey
    /// The authentication secret (`auth_secret`).
    let authSecret: SecretBytes

    /// A subscription from its three strings, `p256dh` and `auth` in base64url (unpadded, or
    /// padded with `=` as some browsers once gave them).
    /// - Throws: ``WebPushError/Reason/invalidSubscription``, naming the member at fault.
    public init(endpoint: String, p256dh: String, auth: String) throws(WebPushError) {
        let url: HTTPSURL
        do {
            url = try HTTPSURL(endpoint)
        } catch {
            throw Self.refusal("endpoint", "is not a usable https URL: \(error)")
        }
        guard let point = Base64URL.decode(Base64URL.unpadded(p256dh)) else {
            throw Self.refusal("keys.p256dh", "is not base64url")
        }
        let key: P256.PublicKey
        do {
            key = try P256.PublicKey(x963Representation: point)
        } catch {
            throw Self.refusal(
                "keys.p256dh", "is not an uncompressed P-256 point on the curve (\(point.count) bytes)")
        }
        guard let secret = Base64URL.decodeSecret(Base64URL.unpadded(auth)) else {
            throw Self.refusal("keys.auth", "is not base64url")
        }
        guard secret.count == Self.authSecretByteCount else {
            throw Self.refusal(
                "keys.auth", "holds \(secret.count) bytes; the authentication secret has exactly 16")
        }
        self.init(endpoint: endpoint, endpointURL: url, receiverKey: key, authSecret: secret)
    }

    /// A subscription from `PushSubscription.toJSON()`'s object. Members other than `endpoint`
    /// and `keys` (such as `expirationTime`) are ignored, and so are members of `keys` other
    /// than `p256dh` and `auth`.
    /// - Throws: ``WebPushError/Reason/invalidSubscription``, naming the member at fault.
    public init(json object: JSONObject) throws(WebPushError) {
        func string(_ value: JSONValue?, _ path: String) throws(WebPushError) -> String {
            guard let value else { throw Self.refusal(path, "is missing") }
            guard let text = value.stringValue else {
                throw Self.refusal(path, "must be a string, not \(value.typeName)")
            }
            return text
        }
        guard let keysValue = object["keys"] else { throw Self.refusal("keys", "is missing") }
        guard let keys = keysValue.objectValue else {
            throw Self.refusal("keys", "must be an object, not \(keysValue.typeName)")
        }
        try self.init(
            endpoint: try string(object["endpoint"], "endpoint"), p256dh: try string(keys["p256dh"], "keys.p256dh"),
            auth: try string(keys["auth"], "keys.auth"))
    }

    init(endpoint: String, endpointURL: HTTPSURL, receiverKey: P256.PublicKey, authSecret: SecretBytes) {
        self.endpoint = endpoint
        self.endpointURL = endpointURL
        self.receiverKey = receiverKey
        self.authSecret = authSecret
    }

    /// The receiver's public key in base64url, as `keys.p256dh` carries it.
    public var p256dh: String { Base64URL.encode(receiverKey.x963Representation) }

    /// The subscription as `PushSubscription.toJSON()` gives it. It holds the authentication
    /// secret: store it as a secret.
    public var json: JSONObject {
        JSONObject([
            ("endpoint", .string(endpoint)),
            (
                "keys",
                .object(
                    JSONObject([("p256dh", .string(p256dh)), ("auth", .string(Base64URL.encodeSecret(authSecret)))]))
            ),
        ])
    }

    /// A readable form that never shows the authentication secret.
    public var description: String { "WebPushSubscription(endpoint: \(endpointURL.authority), auth redacted)" }

    /// As ``description``.
    public var debugDescription: String { description }

    /// The refusal of `member` (`keys.auth`): its detail names the member, quoted, then `problem`.
    private static func refusal(_ member: String, _ problem: String) -> WebPushError {
        WebPushError(.invalidSubscription, "\"\(member)\" \(problem)", member: member)
    }
}
