internal import PushSealCore
package import PushSealGatewayModel

/// ``GatewayStore`` on one SQLite file (the default: `"database": "sqlite:gateway.db"`), in WAL
/// mode, created 0600. It holds sealed payloads only: the outbox's bodies are outer payloads,
/// ciphertext and placeholder.
package final class SQLiteGatewayStore: GatewayStore {
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
        for migration in SQLiteMigrations.all where migration.number > version {
            try database.execute(
                "BEGIN IMMEDIATE; \(migration.sql); PRAGMA user_version = \(migration.number); COMMIT")
        }
        return SchemaChange(from: Int(version), to: GatewaySchema.version)
    }

    /// Copies the database to a new file at `path` (``SQLiteDatabase/backup(to:)``).
    package func backup(to path: String) throws { try database.backup(to: path) }

    package func isReachable() -> Bool { (try? database.read("SELECT 1")) != nil }

    // MARK: Access tokens

    package func addAccessToken(_ token: AccessTokenRecord) throws {
        let (statement, values) = token.insert { "?\($0)" }
        try database.query(statement, values)
    }

    package func accessToken(id: String) throws -> AccessTokenRecord? {
        try database.read("\(AccessTokenRecord.selectColumns) WHERE id = ?", [.text(id)]).first.map(
            AccessTokenRecord.init(row:))
    }

    package func accessTokens() throws -> [AccessTokenRecord] {
        try database.read("\(AccessTokenRecord.selectColumns) ORDER BY created_at, id").map(
            AccessTokenRecord.init(row:))
    }

    package func touchAccessToken(id: String, at time: Int64) throws {
        try database.query("UPDATE access_tokens SET last_used_at = ? WHERE id = ?", [.integer(time), .text(id)])
    }

    package func revokeAccessToken(id: String, at time: Int64) throws -> Bool {
        try database.transaction { sql in
            let found = try sql.query("SELECT revoked_at FROM access_tokens WHERE id = ?", [.text(id)])
            guard !found.isEmpty else { return false }
            try sql.query(
                "UPDATE access_tokens SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?",
                [.integer(time), .text(id)])
            return true
        }
    }

    // MARK: Devices

    package func putDevice(_ device: Device) throws -> Bool {
        try database.transaction { sql in
            let existed = !(try sql.query("SELECT 1 FROM devices WHERE id = ?", [.text(device.id)])).isEmpty
            let (ending, endingValues) = device.endingReplacedInboxes { "?\($0)" }
            try sql.query(ending, endingValues)
            let (statement, values) = device.upsert { "?\($0)" }
            try sql.query(statement, values)
            return !existed
        }
    }

    package func device(id: String) throws -> Device? {
        try database.read("\(Device.selectColumns) WHERE id = ?", [.text(id)]).first.flatMap(Device.init(row:))
    }

    package func deleteDevice(id: String, routing: WebhookRouting) throws -> Bool {
        try database.transaction { sql in
            try OutboxFinish.deleteDevice(id: id, at: GatewayClock.milliseconds(), routing: routing, Self.runner(sql))
        }
    }

    package func devices(_ query: DeviceQuery, limit: Int) throws -> [Device] {
        let (statement, values) = query.statement(limit: limit) { "?\($0)" }
        return try database.read(statement, values).compactMap(Device.init(row:))
    }

    package func devices(user: String) throws -> [Device] {
        try database.read("\(Device.selectColumns) WHERE user_id = ? ORDER BY id", [.text(user)]).compactMap(
            Device.init(row:))
    }

    // MARK: Pushes and the outbox

    package func acceptPush(
        id: String, idempotencyKey: String?, requestHash: [UInt8], at time: Int64, deliveries: [NewDelivery]
    ) throws -> PushAcceptance {
        try database.transaction { sql in
            if let idempotencyKey,
                let earlier = try sql.query(
                    "SELECT id, request_hash FROM pushes WHERE idempotency_key = ?", [.text(idempotencyKey)]
                ).first
            {
                return PushAcceptance(earlier: earlier, requestHash: requestHash)
            }
            try sql.query(
                "INSERT INTO pushes (id, idempotency_key, accepted_at, request_hash) VALUES (?, ?, ?, ?)",
                [.text(id), idempotencyKey.map { .text($0) } ?? .null, .integer(time), .blob(requestHash)])
            for delivery in deliveries {
                try sql.query(NewDelivery.sqliteInsert, delivery.insertParameters(pushID: id, at: time))
            }
            return .accepted
        }
    }

    package func push(id: String, after: Int64, limit: Int) throws -> PushRecord? {
        try database.readTransaction { sql in try PushRecord.read(id: id, after: after, limit: limit, Self.runner(sql))
        }
    }

    package func claimDeliveries(
        _ kind: DeliveryKind, limit: Int, at time: Int64, leaseMilliseconds: Int64, owner: String
    ) throws -> [OutboxDelivery] {
        try database.transaction { sql in
            let rows = try sql.query(
                """
                SELECT \(OutboxDelivery.claimedColumns)
                FROM deliveries AS d
                WHERE d.kind = ?1 AND d.status = 'queued' AND d.next_attempt_at <= ?2
                    AND (d.lease_until IS NULL OR d.lease_until <= ?2)
                ORDER BY d.next_attempt_at, d.id LIMIT ?3
                """, [.text(kind.rawValue), .integer(time), .integer(Int64(limit))])
            var claimed: [OutboxDelivery] = []
            for row in rows {
                guard let delivery = OutboxDelivery(row: row) else { continue }
                // Its next attempt moves to the lease's end, out of the due part of the index
                // until the lease lapses, so that the next claim reads past none in flight.
                try sql.query(
                    "UPDATE deliveries SET lease_owner = ?1, lease_until = ?2, next_attempt_at = ?2 WHERE id = ?3",
                    [.text(owner), .integer(time + leaseMilliseconds), row[0]])
                claimed.append(delivery)
            }
            return claimed
        }
    }

    package func renewLeases(owner: String, until: Int64) throws {
        try database.query(LeaseStatements.renew { "?\($0)" }, [.integer(until), .text(owner)])
    }

    package func finish(_ ended: [EndedAttempt], routing: WebhookRouting) throws {
        try database.transaction { sql in
            for attempt in ended { try OutboxFinish.apply(attempt, routing: routing, Self.runner(sql)) }
        }
    }

    // MARK: The relay's endpoints

    package func addInbox(_ inbox: WebPushInbox) throws {
        let (statement, values) = inbox.insert { "?\($0)" }
        try database.query(statement, values)
    }

    package func inbox(idHash: String) throws -> (WebPushInbox, Device?)? {
        try database.read("\(WebPushInbox.selectWithDevice) WHERE i.id_hash = ?", [.text(idHash)]).first.map(
            WebPushInbox.read(row:))
    }

    package func removeInbox(idHash: String, at time: Int64) throws -> Bool {
        !(try database.query(InboxStatements.remove { "?\($0)" }, [.integer(time), .text(idHash)])).isEmpty
    }

    // MARK: Webhooks

    package func claimWebhookEvents(
        endpoint: String, limit: Int, at time: Int64, expireBefore: Int64, leaseMilliseconds: Int64, owner: String
    ) throws -> WebhookClaim {
        try database.transaction { sql in
            try WebhookOutbox.claim(
                endpoint: endpoint, limit: limit, at: time, expireBefore: expireBefore,
                leaseUntil: time + leaseMilliseconds, owner: owner, locking: "", Self.runner(sql))
        }
    }

    package func recordWebhookAttempt(
        _ attempt: WebhookAttempt, endpoint: String, sent: [Int64], unsent: [Int64], at time: Int64,
        disableBefore: Int64
    ) throws -> WebhookEndpointState {
        try database.transaction { sql in
            try WebhookOutbox.record(
                attempt, endpoint: endpoint, sent: sent, unsent: unsent, at: time, disableBefore: disableBefore,
                Self.runner(sql))
        }
    }

    package func enableWebhookEndpoint(_ endpoint: String) throws -> Bool {
        try database.transaction { sql in try WebhookOutbox.enable(endpoint: endpoint, Self.runner(sql)) }
    }

    package func deleteFinishedWebhookEvents(endedBefore time: Int64, limit: Int) throws -> Int {
        try database.query(
            WebhookOutbox.deleteFinished(locking: "") { "?\($0)" }, [.integer(time), .integer(Int64(limit))]
        ).count
    }

    /// Statements in the open transaction `sql`.
    private static func runner(_ sql: SQLiteDatabase.Transaction) -> StatementRunner {
        StatementRunner(placeholder: { "?\($0)" }, run: { try sql.query($0, $1) })
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

    package func statistics() throws -> GatewayStatistics {
        try database.readTransaction { sql in
            var statistics = GatewayStatistics()
            for row in try sql.query("SELECT status, count(*) FROM deliveries GROUP BY status", []) {
                if let status = row[0].text.flatMap(DeliveryStatus.init(rawValue:)) {
                    statistics.deliveries[status] = Int(row[1].integer ?? 0)
                }
            }
            let devices = try sql.query(
                "SELECT count(*) FILTER (WHERE unregistered_at IS NULL), count(*) FILTER (WHERE unregistered_at IS NOT NULL) "
                    + "FROM devices", [])
            statistics.activeDevices = Int(devices.first?[0].integer ?? 0)
            statistics.unregisteredDevices = Int(devices.first?[1].integer ?? 0)
            statistics.oldestQueuedAcceptedAt =
                try sql.query("SELECT min(accepted_at) FROM deliveries WHERE status = 'queued'", []).first?.first?
                .integer
            try WebhookOutbox.count(into: &statistics, Self.runner(sql))
            return statistics
        }
    }

    // MARK: Retention and operations

    package func deleteFinishedDeliveries(endedBefore time: Int64, limit: Int) throws -> Int {
        try database.query(
            RetentionStatements.deleteFinishedDeliveries(locking: "") { "?\($0)" },
            [.integer(time), .integer(Int64(limit))]
        ).count
    }

    package func deleteEmptyPushes(acceptedBefore time: Int64, limit: Int) throws -> Int {
        try database.query(
            RetentionStatements.deleteEmptyPushes(locking: "") { "?\($0)" }, [.integer(time), .integer(Int64(limit))]
        ).count
    }

    package func heartbeat(_ instance: InstanceRecord, forgetBefore: Int64) throws {
        try database.transaction { sql in
            let (statement, values) = instance.upsert { "?\($0)" }
            try sql.query(statement, values)
            try sql.query("DELETE FROM instances WHERE heartbeat_at < ?", [.integer(forgetBefore)])
        }
    }

    package func instances() throws -> [InstanceRecord] {
        try database.read("\(InstanceRecord.selectColumns) ORDER BY heartbeat_at DESC, id").map(
            InstanceRecord.init(row:))
    }

    package func forgetInstance(id: String) throws {
        _ = try database.transaction { try $0.query("DELETE FROM instances WHERE id = ?", [.text(id)]) }
    }

    package func outcomes(since time: Int64) throws -> [OutcomeCount] {
        try database.read(OutcomeCount.query("?1"), [.integer(time)]).compactMap(OutcomeCount.init(row:))
    }

    package func retrying(limit: Int) throws -> [RetryingCount] {
        try database.read(RetryingCount.query("?1"), [.integer(Int64(limit))]).map(RetryingCount.init(row:))
    }
}
