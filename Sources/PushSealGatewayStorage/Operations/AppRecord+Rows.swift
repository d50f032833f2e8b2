package import PushSealGatewayModel

extension AppRecord {
    /// The columns an app is read from.
    package enum Column: Int, StoredColumns {
        case name, retentionHours, servedAt, webPushServedAt

        package var sql: String {
            switch self {
            case .name: "name"
            case .retentionHours: "retention_hours"
            case .servedAt: "served_at"
            case .webPushServedAt: "webpush_served_at"
            }
        }
    }

    /// The query that reads every listed app, by name.
    package static let selectAll = "SELECT \(Column.list) FROM apps ORDER BY name"

    /// A row of ``selectAll``; nil for a name that is not an app's (none is written so).
    package init?(row values: [DatabaseValue]) {
        let row = StoredRow<Column>(values)
        guard let id = row[.name].text.flatMap(AppID.init) else { return nil }
        self.init(
            id: id, retentionHours: row[.retentionHours].integer.map { Int($0) }, servedAt: row[.servedAt].integer ?? 0,
            webPushServedAt: row[.webPushServedAt].integer)
    }

    /// The statement that records this app as served, for either store, with its parameters. An
    /// instance without the app's Web Push leaves the time another instance served it as it was.
    package func upsert(placeholder: (Int) -> String) -> (String, [DatabaseValue]) {
        (
            "INSERT INTO apps (name, retention_hours, served_at, webpush_served_at) VALUES (\(placeholder(1)), "
                + "\(placeholder(2)), \(placeholder(3)), \(placeholder(4))) ON CONFLICT (name) DO UPDATE SET "
                + "retention_hours = excluded.retention_hours, served_at = excluded.served_at, "
                + "webpush_served_at = COALESCE(excluded.webpush_served_at, apps.webpush_served_at)",
            [
                .text(id.name), retentionHours.map { .integer(Int64($0)) } ?? .null, .integer(servedAt),
                webPushServedAt.map { .integer($0) } ?? .null,
            ]
        )
    }
}
