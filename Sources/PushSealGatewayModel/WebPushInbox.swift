internal import PushSealCore
internal import PushSealPrimitives

/// A Web Push endpoint the gateway serves for one APNs device (gateway-v1.md, "Web Push in"):
/// `<public_url>/v1/webpush/<id>`, where the id is 32 random bytes in base64url, the capability a
/// sender posts with. The store keeps only its SHA-256 (as for access tokens' secrets), so that a
/// copy of the database does not hand out every endpoint, and its first 8 characters for logs.
package struct WebPushInbox: Sendable, Equatable {
    /// The SHA-256 of the id, lower-case hex: the row's key.
    package let idHash: String
    /// The id's first 8 characters: enough to find it in logs, not enough to post to it.
    package let idPrefix: String
    /// The app of its device.
    package let app: AppID
    /// The device its messages go to, an id within ``app``.
    package let deviceID: String
    /// The sender's application server key this endpoint accepts alone (RFC 8292 §4), base64url;
    /// nil accepts any sender.
    package let vapidKey: String?
    /// When it was made, milliseconds since the epoch.
    package let createdAt: Int64
    /// When it was removed (by `DELETE`, or with its device), if it was.
    package let removedAt: Int64?

    /// A value of these members.
    package init(
        idHash: String, idPrefix: String, app: AppID, deviceID: String, vapidKey: String?, createdAt: Int64,
        removedAt: Int64?
    ) {
        self.idHash = idHash
        self.idPrefix = idPrefix
        self.app = app
        self.deviceID = deviceID
        self.vapidKey = vapidKey
        self.createdAt = createdAt
        self.removedAt = removedAt
    }

    /// The length of an id in base64url.
    package static let idLength = 43

    /// A new endpoint for `device` whose id is `secret` (32 random bytes) in base64url: the inbox
    /// to store, and the id, shown once.
    package static func make(secret: [UInt8], for device: Device, vapidKey: String?, at time: Int64)
        -> (WebPushInbox, id: String)
    {
        precondition(secret.count == 32, "an endpoint's id is 32 random bytes")
        let id = Base64URL.encode(secret)
        return (
            WebPushInbox(
                idHash: hash(id), idPrefix: String(id.prefix(ForwardedWebPush.endpointPrefixLength)), app: device.app,
                deviceID: device.id,
                vapidKey: vapidKey, createdAt: time, removedAt: nil),
            id
        )
    }

    /// The key an `id` is stored under.
    package static func hash(_ id: String) -> String { HexDigits.lowercase(SHA256.hash(Array(id.utf8))) }

    /// Whether `text` has the form of an id (43 base64url characters), checked before any lookup.
    package static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == idLength && Base64URL.decode(text)?.count == 32
    }
}
