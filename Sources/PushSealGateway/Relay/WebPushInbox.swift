internal import PushSealCore
internal import PushSealGatewayModel
internal import PushSealPrimitives

/// A Web Push endpoint the gateway serves for one APNs device (gateway-v1.md, "Web Push in"):
/// `<public_url>/v1/webpush/<id>`, where the id is 32 random bytes in base64url, the capability a
/// sender posts with. The store keeps only its SHA-256 (as for access tokens' secrets), so that a
/// copy of the database does not hand out every endpoint, and its first 8 characters for logs.
struct WebPushInbox: Sendable, Equatable {
    /// The SHA-256 of the id, lower-case hex: the row's key.
    let idHash: String
    /// The id's first 8 characters: enough to find it in logs, not enough to post to it.
    let idPrefix: String
    /// The device its messages go to.
    let deviceID: String
    /// The sender's application server key this endpoint accepts alone (RFC 8292 §4), base64url;
    /// nil accepts any sender.
    let vapidKey: String?
    /// When it was made, milliseconds since the epoch.
    let createdAt: Int64
    /// When it was removed (by `DELETE`, or with its device), if it was.
    let removedAt: Int64?

    /// The length of an id in base64url.
    static let idLength = 43

    /// A new endpoint for `deviceID`: the inbox to store, and the id, shown once.
    static func make(deviceID: String, vapidKey: String?, at time: Int64) -> (WebPushInbox, id: String) {
        let id = Base64URL.encode(SecureRandom.bytes(32))
        return (
            WebPushInbox(
                idHash: hash(id), idPrefix: String(id.prefix(8)), deviceID: deviceID, vapidKey: vapidKey,
                createdAt: time, removedAt: nil),
            id
        )
    }

    /// The key an `id` is stored under.
    static func hash(_ id: String) -> String { HexDigits.lowercase(SHA256.hash(Array(id.utf8))) }

    /// Whether `text` has the form of an id (43 base64url characters), checked before any lookup.
    static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == idLength && Base64URL.decode(text)?.count == 32
    }
}

extension WebPushInbox {
    /// The query that reads inboxes with their device's columns (``Device/selectColumns``'s, from
    /// the 7th), to be followed by a `WHERE` on `i.id_hash`.
    static let selectWithDevice = """
        SELECT i.id_hash, i.id_prefix, i.device_id, i.vapid_key, i.created_at, i.removed_at,
            d.id, d.user_id, d.kind, d.token, d.topic, d.environment, d.public_key, d.endpoint, d.p256dh, d.auth,
            d.registered_at, d.unregistered_at
        FROM webpush_inboxes AS i LEFT JOIN devices AS d ON d.id = i.device_id
        """

    /// A row of ``selectWithDevice``: the inbox, and its device when it still exists.
    static func read(row: [DatabaseValue]) -> (WebPushInbox, Device?) {
        let inbox = WebPushInbox(
            idHash: row[0].text ?? "", idPrefix: row[1].text ?? "", deviceID: row[2].text ?? "",
            vapidKey: row[3].text, createdAt: row[4].integer ?? 0, removedAt: row[5].integer)
        return (inbox, row[6].text == nil ? nil : Device(row: Array(row[6...])))
    }

    /// The statement that stores this inbox, for either store, with its parameters.
    func insert(placeholder: (Int) -> String) -> (String, [DatabaseValue]) {
        (
            "INSERT INTO webpush_inboxes (id_hash, id_prefix, device_id, vapid_key, created_at) VALUES ("
                + (1...5).map(placeholder).joined(separator: ", ") + ")",
            [.text(idHash), .text(idPrefix), .text(deviceID), vapidKey.map { .text($0) } ?? .null, .integer(createdAt)]
        )
    }
}
