package import PushSealGatewayModel

extension AccessTokenRecord {
    /// The columns a token is read from.
    package enum Column: Int, StoredColumns {
        case id, secretHash, scopes, createdAt, revokedAt, label, expiresAt, lastUsedAt, app

        package var sql: String {
            switch self {
            case .id: "id"
            case .secretHash: "secret_hash"
            case .scopes: "scopes"
            case .createdAt: "created_at"
            case .revokedAt: "revoked_at"
            case .label: "label"
            case .expiresAt: "expires_at"
            case .lastUsedAt: "last_used_at"
            case .app: "app"
            }
        }
    }

    /// The query that reads tokens, to be followed by a `WHERE` or `ORDER BY` clause.
    package static let selectColumns = "SELECT \(Column.list) FROM access_tokens"

    /// A row of ``selectColumns``; nil for an app this version cannot read, so that a damaged row
    /// never reads as a token over every app.
    package init?(row values: [DatabaseValue]) {
        let row = StoredRow<Column>(values)
        var app: AppID?
        if let name = row[.app].text {
            guard let named = AppID(name) else { return nil }
            app = named
        }
        self.init(
            id: row[.id].text ?? "", secretHash: row[.secretHash].blob ?? [],
            scopes: Set(
                (row[.scopes].text ?? "").split(separator: " ").compactMap { AccessScope(rawValue: String($0)) }),
            createdAt: row[.createdAt].integer ?? 0, revokedAt: row[.revokedAt].integer, label: row[.label].text,
            expiresAt: row[.expiresAt].integer, lastUsedAt: row[.lastUsedAt].integer, app: app)
    }

    /// The statement that stores a new token, for either store, with its parameters.
    package func insert(placeholder: (Int) -> String) -> (String, [DatabaseValue]) {
        (
            "INSERT INTO access_tokens (id, secret_hash, scopes, created_at, label, expires_at, app) VALUES ("
                + (1...7).map(placeholder).joined(separator: ", ") + ")",
            [
                .text(id), .blob(secretHash), .text(scopesText), .integer(createdAt), label.map { .text($0) } ?? .null,
                expiresAt.map { .integer($0) } ?? .null, app.map { .text($0.name) } ?? .null,
            ]
        )
    }

    /// The scopes as stored: their names, sorted, separated by spaces.
    package var scopesText: String { scopes.sorted().map(\.rawValue).joined(separator: " ") }
}
