package import PushSealGatewayModel

extension InstanceRecord {
    /// The columns an instance is read from.
    package enum Column: Int, StoredColumns {
        case id, version, startedAt, heartbeatAt

        package var sql: String {
            switch self {
            case .id: "id"
            case .version: "version"
            case .startedAt: "started_at"
            case .heartbeatAt: "heartbeat_at"
            }
        }
    }

    /// The query that reads instances, to be followed by an `ORDER BY`.
    package static let selectColumns = "SELECT \(Column.list) FROM instances"

    /// A row of ``selectColumns``.
    package init(row values: [DatabaseValue]) {
        let row = StoredRow<Column>(values)
        self.init(
            id: row[.id].text ?? "", version: row[.version].text ?? "", startedAt: row[.startedAt].integer ?? 0,
            heartbeatAt: row[.heartbeatAt].integer ?? 0)
    }

    /// The statement that records this heartbeat, for either store, with its parameters.
    package func upsert(placeholder: (Int) -> String) -> (String, [DatabaseValue]) {
        (
            "INSERT INTO instances (id, version, started_at, heartbeat_at) VALUES (\(placeholder(1)), "
                + "\(placeholder(2)), \(placeholder(3)), \(placeholder(4))) ON CONFLICT (id) DO UPDATE SET "
                + "version = excluded.version, heartbeat_at = excluded.heartbeat_at",
            [.text(id), .text(version), .integer(startedAt), .integer(heartbeatAt)]
        )
    }
}
