package import PushSealGatewayModel

extension WebPushInbox {
    /// The columns an inbox is read from; its device's follow (``Device/Column``'s, of `d`).
    package enum Column: Int, StoredColumns {
        case idHash, idPrefix, deviceID, vapidKey, createdAt, removedAt, app

        package var sql: String {
            switch self {
            case .idHash: "i.id_hash"
            case .idPrefix: "i.id_prefix"
            case .deviceID: "i.device_id"
            case .vapidKey: "i.vapid_key"
            case .createdAt: "i.created_at"
            case .removedAt: "i.removed_at"
            case .app: "i.app"
            }
        }
    }

    /// The query that reads inboxes with their device's columns, to be followed by a `WHERE` on
    /// `i.id_hash`.
    package static let selectWithDevice =
        "SELECT \(Column.list), " + Device.Column.allCases.map { "d." + $0.sql }.joined(separator: ", ")
        + " FROM webpush_inboxes AS i LEFT JOIN devices AS d ON d.id = i.device_id AND d.app = i.app"

    /// A row of ``selectWithDevice``: the inbox, and its device when it still exists; nil for an
    /// app this version cannot read.
    package static func read(row values: [DatabaseValue]) -> (WebPushInbox, Device?)? {
        let row = StoredRow<Column>(values)
        guard let app = row[.app].text.flatMap(AppID.init) else { return nil }
        let inbox = WebPushInbox(
            idHash: row[.idHash].text ?? "", idPrefix: row[.idPrefix].text ?? "", app: app,
            deviceID: row[.deviceID].text ?? "", vapidKey: row[.vapidKey].text, createdAt: row[.createdAt].integer ?? 0,
            removedAt: row[.removedAt].integer)
        let device = Array(values.dropFirst(Column.allCases.count))
        return (inbox, StoredRow<Device.Column>(device)[.id].text == nil ? nil : Device(row: device))
    }

    /// The statement that stores this inbox, for either store, with its parameters.
    package func insert(placeholder: (Int) -> String) -> (String, [DatabaseValue]) {
        (
            "INSERT INTO webpush_inboxes (id_hash, id_prefix, device_id, vapid_key, created_at, app) VALUES ("
                + (1...6).map(placeholder).joined(separator: ", ") + ")",
            [
                .text(idHash), .text(idPrefix), .text(deviceID), vapidKey.map { .text($0) } ?? .null,
                .integer(createdAt), .text(app.name),
            ]
        )
    }
}
