internal import PushSealPrimitives

/// What a browser keeps for one subscription and what opening a message takes: the P-256
/// private key (`ua_private` in RFC 8291) and the authentication secret.
///
/// Both live in wiped storage; `description` shows neither.
public struct WebPushReceiver: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    let privateKey: P256.PrivateKey
    let authSecret: SecretBytes

    /// A receiver from a P-256 private key and a 16-byte authentication secret.
    /// - Throws: ``WebPushError/Reason/invalidReceiverKey`` when the key is not a P-256 pair or
    ///   the secret is not 16 bytes.
    public init(privateKey: PrivateKey, authSecret: [UInt8]) throws(WebPushError) {
        guard case .pair(.p256(let key)) = privateKey.material else {
            throw WebPushError(
                .invalidReceiverKey, "a Web Push receiver key is a P-256 pair, not \(privateKey.suite.name)")
        }
        guard authSecret.count == WebPushSubscription.authSecretByteCount else {
            throw WebPushError(
                .invalidReceiverKey, "the authentication secret holds \(authSecret.count) bytes, not 16")
        }
        self.init(privateKey: key, authSecret: SecretBytes(copying: authSecret))
    }

    /// A receiver from its JSON form: `{"private_key": <P-256 private JWK>, "auth": <base64url>}`
    /// (webpush-v1.md, "The receiver's keys").
    /// - Throws: ``WebPushError/Reason/invalidReceiverKey``, naming the member at fault.
    public init(json object: JSONObject) throws(WebPushError) {
        guard let jwk = object["private_key"]?.objectValue else {
            throw WebPushError(.invalidReceiverKey, "\"private_key\" must be a P-256 private JWK object")
        }
        let key: PrivateKey
        do {
            key = try PrivateKey(jwk: jwk)
        } catch {
            throw WebPushError(.invalidReceiverKey, "\"private_key\": \(error)")
        }
        guard let text = object["auth"]?.stringValue, let secret = Base64URL.decodeSecret(text) else {
            throw WebPushError(.invalidReceiverKey, "\"auth\" must be the authentication secret in base64url")
        }
        guard case .pair(.p256(let pair)) = key.material else {
            throw WebPushError(.invalidReceiverKey, "\"private_key\" is a P-256 pair, not \(key.suite.name)")
        }
        guard secret.count == WebPushSubscription.authSecretByteCount else {
            throw WebPushError(.invalidReceiverKey, "\"auth\" holds \(secret.count) bytes, not 16")
        }
        self.init(privateKey: pair, authSecret: secret)
    }

    init(privateKey: P256.PrivateKey, authSecret: SecretBytes) {
        self.privateKey = privateKey
        self.authSecret = authSecret
    }

    /// A fresh receiver: a new P-256 key pair and a random authentication secret, as a browser
    /// makes when `PushManager.subscribe()` is called.
    public static func generate() throws -> WebPushReceiver {
        WebPushReceiver(
            privateKey: try P256.PrivateKey(),
            authSecret: SecretBytes(randomCount: WebPushSubscription.authSecretByteCount))
    }

    /// The subscription a browser would hand its application for `endpoint`.
    /// - Throws: ``WebPushError/Reason/invalidSubscription`` when `endpoint` is not a usable https URL.
    public func subscription(endpoint: String) throws(WebPushError) -> WebPushSubscription {
        try WebPushSubscription(
            endpoint: endpoint, p256dh: Base64URL.encode(privateKey.publicKey.x963Representation),
            auth: Base64URL.encodeSecret(authSecret))
    }

    /// The public half a sender seals for, `p256dh` (the uncompressed P-256 point in base64url),
    /// and the authentication secret `auth` (base64url): what a subscription's `keys` hold. The
    /// secret is for the sender alone.
    public var keys: (p256dh: String, auth: String) {
        (Base64URL.encode(privateKey.publicKey.x963Representation), Base64URL.encodeSecret(authSecret))
    }

    /// The key id of the receiver's public key (envelope-v1.md's derivation).
    public var kid: String { KeyID.derived(fromPublicKey: privateKey.publicKey.x963Representation) }

    /// The JSON form read by ``init(json:)``. It holds the private key: write it to a 0600 file.
    public var json: JSONObject {
        let key = PrivateKey(
            kid: KeyID.derived(fromPublicKey: privateKey.publicKey.x963Representation), suite: .p256,
            material: .pair(.p256(privateKey)))
        return JSONObject([
            ("private_key", .object(key.privateJWK)), ("auth", .string(Base64URL.encodeSecret(authSecret))),
        ])
    }

    /// A readable form that never shows key material.
    public var description: String { "WebPushReceiver(redacted)" }

    /// As ``description``.
    public var debugDescription: String { description }
}
