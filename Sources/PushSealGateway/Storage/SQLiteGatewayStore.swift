internal import PushSealCore

/// ``GatewayStore`` on one SQLite file (the default: `"database": "sqlite:gateway.db"`), in WAL
/// mode, created 0600. It holds sealed payloads only: the outbox's bodies are outer payloads,
/// ciphertext and placeholder.
final class SQLiteGatewayStore: GatewayStore {
    private let database: SQLiteDatabase

    /// Opens (or creates) the database at `path`.
    init(path: String) throws {
        database = try SQLiteDatabase(path: path)
    }

    /// The migrations, in order: the schema version is the count applied.
    static let migrations: [String] = [
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
        """
    ]

    func migrate() throws {
        let version = try database.query("PRAGMA user_version").first?.first?.integer ?? 0
        guard version <= Self.migrations.count else {
            throw SQLiteDatabase.Failure(
                description: "the database is at schema \(version), newer than this gateway's \(Self.migrations.count)")
        }
        for (index, migration) in Self.migrations.enumerated() where index >= version {
            try database.execute("BEGIN IMMEDIATE; \(migration); PRAGMA user_version = \(index + 1); COMMIT")
        }
    }

    func isReachable() -> Bool { (try? database.query("SELECT 1")) != nil }

    // MARK: Access tokens

    func addAccessToken(_ token: AccessTokenRecord) throws {
        try database.query(
            "INSERT INTO access_tokens (id, secret_hash, scopes, created_at) VALUES (?, ?, ?, ?)",
            [.text(token.id), .blob(token.secretHash), .text(Self.text(token.scopes)), .integer(token.createdAt)])
    }

    func accessToken(id: String) throws -> AccessTokenRecord? {
        try database.query(
            "SELECT id, secret_hash, scopes, created_at, revoked_at FROM access_tokens WHERE id = ?", [.text(id)]
        ).first.map(Self.accessToken)
    }

    func accessTokens() throws -> [AccessTokenRecord] {
        try database.query(
            "SELECT id, secret_hash, scopes, created_at, revoked_at FROM access_tokens ORDER BY created_at, id"
        ).map(Self.accessToken)
    }

    func revokeAccessToken(id: String, at time: Int64) throws -> Bool {
        try database.transaction { sql in
            let found = try sql.query("SELECT revoked_at FROM access_tokens WHERE id = ?", [.text(id)])
            guard !found.isEmpty else { return false }
            try sql.query(
                "UPDATE access_tokens SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?",
                [.integer(time), .text(id)])
            return true
        }
    }

    private static func text(_ scopes: Set<AccessScope>) -> String {
        scopes.sorted().map(\.rawValue).joined(separator: " ")
    }

    private static func accessToken(_ row: [SQLiteDatabase.Value]) -> AccessTokenRecord {
        AccessTokenRecord(
            id: row[0].text ?? "", secretHash: row[1].blob ?? [],
            scopes: Set((row[2].text ?? "").split(separator: " ").compactMap { AccessScope(rawValue: String($0)) }),
            createdAt: row[3].integer ?? 0, revokedAt: row[4].integer)
    }

    // MARK: Devices

    func putDevice(_ device: Device) throws -> Bool {
        try database.transaction { sql in
            let existed = !(try sql.query("SELECT 1 FROM devices WHERE id = ?", [.text(device.id)])).isEmpty
            try sql.query(
                """
                INSERT INTO devices (id, user_id, token, topic, environment, public_key, registered_at, unregistered_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, NULL)
                ON CONFLICT (id) DO UPDATE SET user_id = excluded.user_id, token = excluded.token,
                    topic = excluded.topic, environment = excluded.environment, public_key = excluded.public_key,
                    registered_at = excluded.registered_at, unregistered_at = NULL
                """,
                [
                    .text(device.id), .text(device.user), .text(device.token), .text(device.topic),
                    .text(device.environment.rawValue), .text(device.publicKeyJWK), .integer(device.registeredAt),
                ])
            return !existed
        }
    }

    func device(id: String) throws -> Device? {
        try database.query("\(Self.deviceColumns) WHERE id = ?", [.text(id)]).first.flatMap(Self.device)
    }

    func deleteDevice(id: String) throws -> Bool {
        try database.transaction { sql in
            guard !(try sql.query("SELECT 1 FROM devices WHERE id = ?", [.text(id)])).isEmpty else { return false }
            try sql.query("DELETE FROM devices WHERE id = ?", [.text(id)])
            try sql.query(
                "UPDATE deliveries SET status = 'unregistered', reason = 'DeviceDeleted', lease_owner = NULL "
                    + "WHERE device_id = ? AND status = 'queued'", [.text(id)])
            return true
        }
    }

    func devices(user: String) throws -> [Device] {
        try database.query("\(Self.deviceColumns) WHERE user_id = ? ORDER BY id", [.text(user)]).compactMap(Self.device)
    }

    private static let deviceColumns =
        "SELECT id, user_id, token, topic, environment, public_key, registered_at, unregistered_at FROM devices"

    private static func device(_ row: [SQLiteDatabase.Value]) -> Device? {
        guard let environment = row[4].text.flatMap(APNsEnvironment.init(rawValue:)) else { return nil }
        return Device(
            id: row[0].text ?? "", user: row[1].text ?? "", token: row[2].text ?? "", topic: row[3].text ?? "",
            environment: environment, publicKeyJWK: row[5].text ?? "", registeredAt: row[6].integer ?? 0,
            unregisteredAt: row[7].integer)
    }

    // MARK: Pushes and the outbox

    func acceptPush(id: String, idempotencyKey: String?, at time: Int64, deliveries: [NewDelivery]) throws -> String? {
        try database.transaction { sql in
            if let idempotencyKey,
                let earlier = try sql.query("SELECT id FROM pushes WHERE idempotency_key = ?", [.text(idempotencyKey)])
                    .first?.first?.text
            {
                return earlier
            }
            try sql.query(
                "INSERT INTO pushes (id, idempotency_key, accepted_at) VALUES (?, ?, ?)",
                [.text(id), idempotencyKey.map { .text($0) } ?? .null, .integer(time)])
            for delivery in deliveries {
                try sql.query(
                    """
                    INSERT INTO deliveries (push_id, device_id, token, environment, headers, body, expiration, status,
                        next_attempt_at, accepted_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?)
                    """,
                    [
                        .text(id), .text(delivery.device.id), .text(delivery.device.token),
                        .text(delivery.device.environment.rawValue), .text(Self.text(delivery.headers)),
                        .blob(delivery.body), delivery.expiration.map { .integer($0) } ?? .null, .integer(time),
                        .integer(time),
                    ])
            }
            return nil
        }
    }

    func push(id: String) throws -> PushRecord? {
        try database.transaction { sql in
            guard let accepted = try sql.query("SELECT accepted_at FROM pushes WHERE id = ?", [.text(id)]).first else {
                return nil
            }
            let deliveries = try sql.query(
                "SELECT device_id, status, apns_id, reason, attempts FROM deliveries WHERE push_id = ? ORDER BY id",
                [.text(id)]
            ).map { row in
                DeliveryState(
                    deviceID: row[0].text ?? "", status: row[1].text.flatMap(DeliveryStatus.init(rawValue:)) ?? .queued,
                    apnsID: row[2].text, reason: row[3].text, attempts: Int(row[4].integer ?? 0))
            }
            return PushRecord(id: id, acceptedAt: accepted[0].integer ?? 0, deliveries: deliveries)
        }
    }

    func claimDeliveries(limit: Int, at time: Int64, leaseMilliseconds: Int64, owner: String) throws
        -> [OutboxDelivery]
    {
        try database.transaction { sql in
            let rows = try sql.query(
                """
                SELECT d.id, d.push_id, d.device_id, d.token, d.environment, d.headers, d.body, d.expiration,
                    d.attempts, d.accepted_at,
                    EXISTS (SELECT 1 FROM devices WHERE devices.id = d.device_id AND devices.token = d.token
                            AND devices.unregistered_at IS NOT NULL)
                FROM deliveries AS d
                WHERE d.status = 'queued' AND d.next_attempt_at <= ? AND (d.lease_until IS NULL OR d.lease_until <= ?)
                ORDER BY d.next_attempt_at, d.id LIMIT ?
                """, [.integer(time), .integer(time), .integer(Int64(limit))])
            var claimed: [OutboxDelivery] = []
            for row in rows {
                guard let environment = row[4].text.flatMap(APNsEnvironment.init(rawValue:)) else { continue }
                try sql.query(
                    "UPDATE deliveries SET lease_owner = ?, lease_until = ? WHERE id = ?",
                    [.text(owner), .integer(time + leaseMilliseconds), row[0]])
                claimed.append(
                    OutboxDelivery(
                        id: row[0].integer ?? 0, pushID: row[1].text ?? "", deviceID: row[2].text ?? "",
                        token: row[3].text ?? "", environment: environment, headers: Self.headers(row[5].text ?? ""),
                        body: row[6].blob ?? [], expiration: row[7].integer, attempts: Int(row[8].integer ?? 0),
                        acceptedAt: row[9].integer ?? 0, tokenIsGone: row[10].integer == 1))
            }
            return claimed
        }
    }

    func renewLeases(owner: String, until: Int64) throws {
        try database.query(
            "UPDATE deliveries SET lease_until = ? WHERE lease_owner = ? AND status = 'queued'",
            [.integer(until), .text(owner)])
    }

    func finish(_ delivery: OutboxDelivery, _ outcome: DeliveryOutcome, attempts: Int, at time: Int64) throws {
        try database.transaction { sql in
            let id = SQLiteDatabase.Value.integer(delivery.id)
            let count = SQLiteDatabase.Value.integer(Int64(attempts))
            switch outcome {
            case .sent(let apnsID):
                try sql.query(
                    "UPDATE deliveries SET status = 'sent', apns_id = ?, reason = NULL, attempts = ?, finished_at = ?, "
                        + "lease_owner = NULL, lease_until = NULL WHERE id = ?",
                    [apnsID.map { .text($0) } ?? .null, count, .integer(time), id])
            case .failed(let reason):
                try finish(sql, id, status: .failed, reason: reason, attempts: count, at: time)
            case .expired:
                try finish(sql, id, status: .expired, reason: "Expired", attempts: count, at: time)
            case .retry(let due, let reason):
                try sql.query(
                    "UPDATE deliveries SET reason = ?, attempts = ?, next_attempt_at = ?, lease_owner = NULL, "
                        + "lease_until = NULL WHERE id = ?", [.text(reason), count, .integer(due), id])
            case .unregistered(let reason, let timestamp):
                try finish(sql, id, status: .unregistered, reason: reason, attempts: count, at: time)
                // A device that registered after APNs' timestamp (or after this push) keeps its token.
                try sql.query(
                    "UPDATE devices SET unregistered_at = ? WHERE id = ? AND token = ? AND registered_at <= ?",
                    [
                        .integer(time), .text(delivery.deviceID), .text(delivery.token),
                        .integer(timestamp ?? delivery.acceptedAt),
                    ])
            }
        }
    }

    private func finish(
        _ sql: SQLiteDatabase.Transaction, _ id: SQLiteDatabase.Value,
        status: DeliveryStatus, reason: String, attempts: SQLiteDatabase.Value, at time: Int64
    ) throws {
        try sql.query(
            "UPDATE deliveries SET status = ?, reason = ?, attempts = ?, finished_at = ?, lease_owner = NULL, "
                + "lease_until = NULL WHERE id = ?",
            [.text(status.rawValue), .text(reason), attempts, .integer(time), id])
    }

    func statistics() throws -> GatewayStatistics {
        try database.transaction { sql in
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
            return statistics
        }
    }

    /// Headers as stored: a JSON array of `[name, value]` pairs.
    private static func text(_ headers: [(name: String, value: String)]) -> String {
        JSONWriter.string(.array(headers.map { .array([.string($0.name), .string($0.value)]) }))
    }

    private static func headers(_ text: String) -> [(name: String, value: String)] {
        guard case .array(let pairs)? = try? JSONParser.parse(text) else { return [] }
        return pairs.compactMap { pair in
            guard case .array(let parts) = pair, parts.count == 2, let name = parts[0].stringValue,
                let value = parts[1].stringValue
            else { return nil }
            return (name, value)
        }
    }
}
