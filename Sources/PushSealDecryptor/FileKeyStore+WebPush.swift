internal import PushSealCore

extension FileKeyStore {
    /// The current Web Push receiver's keys, for a sender to seal for (webpush-v1.md, "Forwarded
    /// to an iPhone"): made when the store has none, a P-256 key pair and a 16-byte
    /// authentication secret stored with the other keys (one atomic write). Only the public key
    /// and the secret leave the store: the app registers the public key with its relay and hands
    /// both to the sender, as a browser's `PushSubscription.toJSON()` would.
    /// - Returns: the receiver's kid, `p256dh` and `auth`.
    public func webPushKeys() throws -> WebPushKeys {
        try update { contents in
            if let entry = contents.entries.first(where: { $0.role == .webPush && $0.current }) {
                return WebPushKeys(try Self.webPushReceiver(entry))
            }
            let receiver = try WebPushReceiver.generate()
            let json = receiver.json
            guard let jwk = json["private_key"]?.objectValue, let auth = json["auth"]?.stringValue else {
                throw PushSealError(.invalidKey, "a new Web Push receiver has no JSON form")
            }
            try Self.checkUnused(receiver.kid, in: contents.entries)
            contents.entries.append(
                StoredKey(
                    kid: receiver.kid, suite: .p256, role: .webPush, current: true, created: StoredKey.timestamp(),
                    jwk: jwk, auth: auth))
            return WebPushKeys(receiver)
        }
    }
}

/// A Web Push receiver's keys as a sender takes them: its `p256dh` and its authentication secret,
/// and its kid. `description` shows the kid only: the secret is for the sender alone.
public struct WebPushKeys: Sendable, CustomStringConvertible {
    /// The receiver's key id.
    public let kid: String
    /// The receiver's public key, the uncompressed P-256 point in base64url.
    public let p256dh: String
    /// The authentication secret, base64url: hand it to the sender only.
    public let auth: String

    init(_ receiver: WebPushReceiver) {
        kid = receiver.kid
        (p256dh, auth) = receiver.keys
    }

    /// The kid, never the secret.
    public var description: String { "WebPushKeys(kid: \(kid), auth redacted)" }
}
