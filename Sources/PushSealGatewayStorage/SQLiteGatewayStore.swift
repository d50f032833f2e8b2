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

    /// The migrations, in order: the schema version is the count applied.
    package static let migrations: [String] = [
        """
        CREATE TABLE access_tokens (
            id TEXT PRIMARY KEY, secret_hash BLOB NOT NULL, scopes TEXT NOT NULL,
            created_at INTEGER NOT NULL, revoked_at INTEGER);
        CREATE TABLE devices (
            id TEXT PRIMARY KEY, user_id TEXT NOT NULL, token TEXT NOT NULL, topic TEXT NOT NULL,
            environment TEXT NOT NULL, public_key TEXT NOT NULL,
            registered_at INTEGER NOT NULL, unregistered_at INTEGER);
        CREATE INDEX devices_by_user ON devices (user_id, id);
        CREATE TABLE pushes (
            id TEXT PRIMARY KEY, idempotency_key TEXT UNIQUE, accepted_at INTEGER NOT NULL);
        CREATE TABLE deliveries (
            id INTEGER PRIMARY KEY, push_id TEXT NOT NULL REFERENCES pushes (id), device_id TEXT NOT NULL,
            token TEXT NOT NULL, environment TEXT NOT NULL, headers TEXT NOT NULL, body BLOB NOT NULL,
            expiration INTEGER, status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at INTEGER NOT NULL, lease_owner TEXT, lease_until INTEGER,
            apns_id TEXT, reason TEXT, accepted_at INTEGER NOT NULL, finished_at INTEGER);
        CREATE INDEX deliveries_due ON deliveries (status, next_attempt_at);
        CREATE INDEX deliveries_by_push ON deliveries (push_id, id);
        """,
        // Web Push: a device is an APNs device or a subscription, and a delivery goes to a token or
        // an endpoint (its `address`). SQLite cannot drop NOT NULL, so both tables are rebuilt.
        """
        CREATE TABLE devices_v2 (
            id TEXT PRIMARY KEY, user_id TEXT NOT NULL, kind TEXT NOT NULL, token TEXT, topic TEXT,
            environment TEXT, public_key TEXT, endpoint TEXT, p256dh TEXT, auth TEXT,
            registered_at INTEGER NOT NULL, unregistered_at INTEGER);
        INSERT INTO devices_v2 (id, user_id, kind, token, topic, environment, public_key, registered_at, unregistered_at)
            SELECT id, user_id, 'apns', token, topic, environment, public_key, registered_at, unregistered_at
            FROM devices;
        DROP TABLE devices;
        ALTER TABLE devices_v2 RENAME TO devices;
        CREATE INDEX devices_by_user ON devices (user_id, id);
        CREATE TABLE deliveries_v2 (
            id INTEGER PRIMARY KEY, push_id TEXT NOT NULL REFERENCES pushes (id), device_id TEXT NOT NULL,
            kind TEXT NOT NULL, address TEXT NOT NULL, environment TEXT, headers TEXT NOT NULL, body BLOB NOT NULL,
            expiration INTEGER, status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at INTEGER NOT NULL, lease_owner TEXT, lease_until INTEGER,
            apns_id TEXT, reason TEXT, accepted_at INTEGER NOT NULL, finished_at INTEGER);
        INSERT INTO deliveries_v2
            SELECT id, push_id, device_id, 'apns', token, environment, headers, body, expiration, status, attempts,
                next_attempt_at, lease_owner, lease_until, apns_id, reason, accepted_at, finished_at
            FROM deliveries;
        DROP TABLE deliveries;
        ALTER TABLE deliveries_v2 RENAME TO deliveries;
        CREATE INDEX deliveries_due ON deliveries (kind, status, next_attempt_at);
        CREATE INDEX deliveries_by_push ON deliveries (push_id, id);
        """,
        // Retention: ended deliveries keep no body, and go once the retention time has passed;
        // instances record a heartbeat for the status page.
        """
        UPDATE deliveries SET finished_at = accepted_at WHERE status <> 'queued' AND finished_at IS NULL;
        UPDATE deliveries SET body = X'' WHERE status <> 'queued';
        CREATE INDEX deliveries_finished ON deliveries (finished_at) WHERE status <> 'queued';
        CREATE INDEX pushes_by_time ON pushes (accepted_at);
        CREATE TABLE instances (
            id TEXT PRIMARY KEY, version TEXT NOT NULL, started_at INTEGER NOT NULL, heartbeat_at INTEGER NOT NULL);
        """,
        // Idempotency, exact: a key used again with a different request is refused. Tokens get a
        // label, an expiry and their last use.
        """
        ALTER TABLE pushes ADD COLUMN request_hash BLOB;
        ALTER TABLE access_tokens ADD COLUMN label TEXT;
        ALTER TABLE access_tokens ADD COLUMN expires_at INTEGER;
        ALTER TABLE access_tokens ADD COLUMN last_used_at INTEGER;
        CREATE INDEX devices_unregistered ON devices (unregistered_at, id) WHERE unregistered_at IS NOT NULL;
        """,
        // Webhooks: an outbox of events, a row per event and endpoint, and the endpoints' failures.
        """
        CREATE TABLE webhook_events (
            id INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL, endpoint TEXT NOT NULL, type TEXT NOT NULL,
            body TEXT NOT NULL, created_at INTEGER NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at INTEGER NOT NULL, lease_owner TEXT, lease_until INTEGER, reason TEXT, finished_at INTEGER);
        CREATE INDEX webhook_events_queued ON webhook_events (endpoint, id) WHERE status = 'queued';
        CREATE INDEX webhook_events_finished ON webhook_events (finished_at) WHERE status <> 'queued';
        CREATE TABLE webhook_endpoints (
            name TEXT PRIMARY KEY, failures INTEGER NOT NULL DEFAULT 0, failing_since INTEGER, retry_at INTEGER,
            disabled_at INTEGER);
        """,
        // The relay: the Web Push endpoints it serves for APNs devices, kept by the hash of their id.
        """
        CREATE TABLE webpush_inboxes (
            id_hash TEXT PRIMARY KEY, id_prefix TEXT NOT NULL, device_id TEXT NOT NULL, vapid_key TEXT,
            created_at INTEGER NOT NULL, removed_at INTEGER);
        CREATE INDEX webpush_inboxes_by_device ON webpush_inboxes (device_id);
        """,
        // Statements repeated while the gateway runs find their rows through an index, whatever the
        // outbox's size: a worker's lease renewal (a full scan of `deliveries` held the writer for
        // 50–120 ms at 50,000 rows), and the sweep of webhook events queued past their retry window.
        """
        CREATE INDEX deliveries_by_owner ON deliveries (lease_owner) WHERE status = 'queued';
        CREATE INDEX webhook_events_stale ON webhook_events (created_at) WHERE status = 'queued';
        """,
        // Schema 8 changes PostgreSQL's outbox only (its deliveries' foreign key to their push,
        // whose check cost a trigger per delivery there); SQLite checks that key in process, and
        // keeps it. The number moves with PostgreSQL's, so that one schema number names both.
        "SELECT 1",
        // Schema 9 keeps PostgreSQL's sealed bodies in their rows (its TOAST target); SQLite keeps a
        // row of that size in its page already.
        "SELECT 1",
    ]

    @discardableResult
    package func migrate() throws -> SchemaChange {
        let version = try database.query("PRAGMA user_version").first?.first?.integer ?? 0
        guard version <= Self.migrations.count else {
            throw SQLiteDatabase.Failure(
                description: "the database is at schema \(version), newer than this gateway's \(Self.migrations.count)")
        }
        for (index, migration) in Self.migrations.enumerated() where index >= version {
            try database.execute("BEGIN IMMEDIATE; \(migration); PRAGMA user_version = \(index + 1); COMMIT")
        }
        return SchemaChange(from: Int(version), to: Self.migrations.count)
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
