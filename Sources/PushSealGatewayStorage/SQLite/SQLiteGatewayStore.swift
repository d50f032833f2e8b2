package import PushSealGatewayModel

/// ``GatewayStore`` on one SQLite file (the default: `"database": "sqlite:gateway.db"`), in WAL
/// mode, created 0600. It holds sealed payloads only: the outbox's bodies are outer payloads,
/// ciphertext and placeholder. The SQL both databases share is the aggregates' stores'; here is
/// what SQLite does its own way: its migrations, a device's registration, a push's insert, the
/// claim, and its writer's counters.
package final class SQLiteGatewayStore: GatewayStore, SQLExecutor {
    private let database: SQLiteDatabase

    /// Opens (or creates) the database at `path`.
    package init(path: String) throws {
        database = try SQLiteDatabase(path: path)
    }

    @discardableResult
    package func migrate() throws -> SchemaChange {
        let version = try database.query("PRAGMA user_version").first?.first?.integer ?? 0
        guard version <= GatewaySchema.version else {
            throw SQLiteDatabase.Failure(
                description: "the database is at schema \(version), newer than this gateway's \(GatewaySchema.version)")
        }
        for migration in SQLiteMigrations.all where migration.number > version { try database.apply(migration) }
        return SchemaChange(from: Int(version), to: GatewaySchema.version)
    }

    /// Copies the database to a new file at `path` (``SQLiteDatabase/backup(to:)``).
    package func backup(to path: String) throws { try database.backup(to: path) }

    // MARK: The executor

    package var dialect: SQLDialect { .sqlite }

    package func read(_ statement: String, _ parameters: [DatabaseValue]) throws -> [[DatabaseValue]] {
        try database.read(statement, parameters)
    }

    @discardableResult
    package func write(_ statement: String, _ parameters: [DatabaseValue]) throws -> [[DatabaseValue]] {
        try database.query(statement, parameters)
    }

    package func transaction<Result>(_ body: @escaping (StatementRunner) throws -> Result) throws -> Result {
        try database.transaction { try body(Self.runner($0)) }
    }

    package func readTransaction<Result>(_ body: (StatementRunner) throws -> Result) throws -> Result {
        try database.readTransaction { try body(Self.runner($0)) }
    }

    package var writeHealth: StoreWriteHealth { database.writeHealth }

    /// Statements in the open transaction `sql`.
    private static func runner(_ sql: SQLiteDatabase.Transaction) -> StatementRunner {
        StatementRunner(dialect: .sqlite, run: { try sql.query($0, $1) })
    }

    // MARK: What SQLite does its own way

    package func putDevice(_ device: Device) throws -> Bool {
        try database.transaction { [dialect] sql in
            let existed =
                !(try sql.query(
                    "SELECT 1 FROM devices WHERE id = ?1 AND app = ?2", [.text(device.id), .text(device.app.name)]))
                .isEmpty
            let (ending, endingValues) = device.endingReplacedInboxes(placeholder: dialect.placeholder)
            try sql.query(ending, endingValues)
            let (statement, values) = device.upsert(placeholder: dialect.placeholder)
            try sql.query(statement, values)
            return !existed
        }
    }

    package func acceptPush(
        id: String, in app: AppID, idempotencyKey: String?, requestHash: [UInt8], at time: Int64,
        deliveries: [NewDelivery]
    ) throws -> PushAcceptance {
        try database.transaction { sql in
            if let idempotencyKey,
                let earlier = try sql.query(
                    "SELECT id, request_hash FROM pushes WHERE idempotency_key = ?1 AND app = ?2",
                    [.text(idempotencyKey), .text(app.name)]
                ).first
            {
                return PushAcceptance(earlier: earlier, requestHash: requestHash)
            }
            try sql.query(
                "INSERT INTO pushes (id, idempotency_key, accepted_at, request_hash, app) VALUES (?1, ?2, ?3, ?4, ?5)",
                [
                    .text(id), idempotencyKey.map { .text($0) } ?? .null, .integer(time), .blob(requestHash),
                    .text(app.name),
                ])
            for delivery in deliveries {
                try sql.query(NewDelivery.sqliteInsert, delivery.insertParameters(pushID: id, at: time))
            }
            return .accepted
        }
    }

    package func claimDeliveries(
        _ kind: DeliveryKind, from apps: [AppID], limit: Int, at time: Int64, leaseMilliseconds: Int64,
        owner: String
    ) throws -> [OutboxDelivery] {
        try database.transaction { [self] sql in
            var claimed: [OutboxDelivery] = []
            for app in apps where claimed.count < limit {
                try claim(
                    kind, of: app, limit: limit - claimed.count, at: time, leaseMilliseconds: leaseMilliseconds,
                    owner: owner, into: &claimed, sql)
            }
            return claimed
        }
    }

    /// Leases up to `limit` of `app`'s due deliveries of `kind` (one range of `deliveries_due`),
    /// appending them to `claimed`.
    private func claim(
        _ kind: DeliveryKind, of app: AppID, limit: Int, at time: Int64, leaseMilliseconds: Int64, owner: String,
        into claimed: inout [OutboxDelivery], _ sql: SQLiteDatabase.Transaction
    ) throws {
        let rows = try sql.query(
            """
            SELECT \(OutboxDelivery.claimedColumns)
            FROM deliveries AS d
            WHERE d.kind = ?1 AND d.app = ?4 AND d.status = 'queued' AND d.next_attempt_at <= ?2
                AND (d.lease_until IS NULL OR d.lease_until <= ?2)
            ORDER BY d.next_attempt_at, d.id LIMIT ?3
            """, [.text(kind.rawValue), .integer(time), .integer(Int64(limit)), .text(app.name)])
        for row in rows {
            guard let delivery = OutboxDelivery(row: row) else { continue }
            // Its next attempt moves to the lease's end, out of the due part of the index
            // until the lease lapses, so that the next claim reads past none in flight.
            try sql.query(
                "UPDATE deliveries SET lease_owner = ?1, lease_until = ?2, next_attempt_at = ?2 WHERE id = ?3",
                [.text(owner), .integer(time + leaseMilliseconds), row[0]])
            claimed.append(delivery)
        }
    }

    /// What the one writer has done: its busy time (a rate near 1 means it is the gateway's
    /// limit), its commits, and the write transactions they held.
    package var metrics: [StoreMetric] {
        let writer = database.writerActivity
        return [
            StoreMetric(
                "sqlite_writer_busy_seconds_total",
                help: "Seconds SQLite's one writer spent in write transactions, each commit's fsync included: "
                    + "a rate near 1 means it is the gateway's limit.",
                value: Double(writer.busyNanoseconds) / 1_000_000_000),
            StoreMetric(
                "sqlite_commits_total",
                help: "Commits of SQLite's writer, each holding the write transactions that arrived together.",
                value: Double(writer.commits)),
            StoreMetric(
                "sqlite_write_transactions_total", help: "Write transactions SQLite's writer committed.",
                value: Double(writer.transactions)),
        ]
    }
}
