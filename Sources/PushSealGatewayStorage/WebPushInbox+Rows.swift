package import PushSealGatewayModel

extension WebPushInbox {
    /// The query that reads inboxes with their device's columns (``Device/selectColumns``'s, from
    /// the 7th), to be followed by a `WHERE` on `i.id_hash`.
    package static let selectWithDevice = """
        SELECT i.id_hash, i.id_prefix, i.device_id, i.vapid_key, i.created_at, i.removed_at,
            d.id, d.user_id, d.kind, d.token, d.topic, d.environment, d.public_key, d.endpoint, d.p256dh, d.auth,
            d.registered_at, d.unregistered_at
        FROM webpush_inboxes AS i LEFT JOIN devices AS d ON d.id = i.device_id
        """

    /// A row of ``selectWithDevice``: the inbox, and its device when it still exists.
    package static func read(row: [DatabaseValue]) -> (WebPushInbox, Device?) {
        let inbox = WebPushInbox(
            idHash: row[0].text ?? "", idPrefix: row[1].text ?? "", deviceID: row[2].text ?? "",
            vapidKey: row[3].text, createdAt: row[4].integer ?? 0, removedAt: row[5].integer)
        return (inbox, row[6].text == nil ? nil : Device(row: Array(row[6...])))
    }

    /// The statement that stores this inbox, for either store, with its parameters.
    package func insert(placeholder: (Int) -> String) -> (String, [DatabaseValue]) {
        (
            "INSERT INTO webpush_inboxes (id_hash, id_prefix, device_id, vapid_key, created_at) VALUES ("
                + (1...5).map(placeholder).joined(separator: ", ") + ")",
            [.text(idHash), .text(idPrefix), .text(deviceID), vapidKey.map { .text($0) } ?? .null, .integer(createdAt)]
        )
    }
}
