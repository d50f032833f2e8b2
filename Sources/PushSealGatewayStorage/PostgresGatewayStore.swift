package import PushSealGatewayModel

#if canImport(CLibPQ)
    internal import PushSealCore

    /// ``GatewayStore`` on PostgreSQL (`"database": "postgres://user@host:port/db"`), shared by
    /// any number of gateway instances: deliveries are claimed with `FOR UPDATE SKIP LOCKED` under
    /// a lease, so two instances never hold the same delivery, and an instance that died leaves
    /// its leases to run out. Once a push is committed, `NOTIFY pushseal_outbox` names the kinds
    /// of its deliveries (sent by an ``OutboxNotifier``, shared by the pushes of a burst), which
    /// wakes idle workers of those kinds everywhere (``OutboxListener``); polling remains the
    /// fallback.
    package final class PostgresGatewayStore: GatewayStore {
        /// The channel of outbox notifications.
        package static let channel = "pushseal_outbox"

        /// The advisory lock key that serializes migrations (any constant the gateway alone uses).
        private static let migrationLock: Int64 = 0x7073_6777_6d69_6772

        package let pool: PostgresPool
        /// Announces committed pushes on ``channel``.
        private let notifier: OutboxNotifier

        /// A store on `url` with at most `connections` connections.
        package init(url: String, passwordFile: String?, connections: Int) {
            let pool = PostgresPool(url: url, passwordFile: passwordFile, size: connections)
            self.pool = pool
            notifier = OutboxNotifier(name: "pushseal-outbox-notifier") { kinds in
                let payload = OutboxListener.payload(kinds: kinds)
                _ = try pool.withConnection {
                    try $0.query("SELECT pg_notify($1, $2)", [.text(Self.channel), .text(payload)])
                }
            }
        }

        @discardableResult
        package func migrate() throws -> SchemaChange { try migrate(through: GatewaySchema.version) }

        /// Applies the migrations up to schema `target` (at most the gateway's), as ``migrate()``
        /// applies them all: a database left at an older schema, for the tests of an upgrade.
        @discardableResult
        package func migrate(through target: Int) throws -> SchemaChange {
            let target = min(target, GatewaySchema.version)
            return try pool.withConnection { connection in
                // Instances that start together take turns; the second finds the schema current.
                // Waiting for that turn is not a stuck request: no lock timeout for it.
                try connection.execute("SET lock_timeout = 0")
                defer { _ = try? connection.execute("RESET lock_timeout") }
                try connection.query("SELECT pg_advisory_lock($1)", [.integer(Self.migrationLock)])
                defer { _ = try? connection.query("SELECT pg_advisory_unlock($1)", [.integer(Self.migrationLock)]) }
                try connection.execute("CREATE TABLE IF NOT EXISTS pushseal_schema (version INTEGER NOT NULL)")
                let version =
                    try connection.query("SELECT max(version) FROM pushseal_schema").first?.first?.integer ?? 0
                guard version <= GatewaySchema.version else {
                    throw GatewayError(
                        "the database is at schema \(version), newer than this gateway's \(GatewaySchema.version)")
                }
                for migration in PostgresMigrations.all where migration.number > version && migration.number <= target {
                    try connection.execute(
                        "BEGIN; \(migration.sql); INSERT INTO pushseal_schema (version) VALUES (\(migration.number)); COMMIT"
                    )
                }
                return SchemaChange(from: Int(version), to: max(Int(version), target))
            }
        }

        package func isReachable() -> Bool { (try? pool.withConnection { try $0.query("SELECT 1") }) != nil }

        // MARK: Access tokens

        package func addAccessToken(_ token: AccessTokenRecord) throws {
            let (statement, values) = token.insert { "$\($0)" }
            try pool.withConnection { try $0.query(statement, values) }
        }

        package func accessToken(id: String) throws -> AccessTokenRecord? {
            try pool.withConnection {
                try $0.query("\(AccessTokenRecord.selectColumns) WHERE id = $1", [.text(id)])
            }.first.map(AccessTokenRecord.init(row:))
        }

        package func accessTokens() throws -> [AccessTokenRecord] {
            try pool.withConnection {
                try $0.query("\(AccessTokenRecord.selectColumns) ORDER BY created_at, id")
            }.map(AccessTokenRecord.init(row:))
        }

        package func touchAccessToken(id: String, at time: Int64) throws {
            try pool.withConnection {
                try $0.query("UPDATE access_tokens SET last_used_at = $1 WHERE id = $2", [.integer(time), .text(id)])
            }
        }

        package func revokeAccessToken(id: String, at time: Int64) throws -> Bool {
            try pool.withConnection {
                !(try $0.query(
                    "UPDATE access_tokens SET revoked_at = coalesce(revoked_at, $1) WHERE id = $2 RETURNING id",
                    [.integer(time), .text(id)])).isEmpty
            }
        }

        // MARK: Devices

        package func putDevice(_ device: Device) throws -> Bool {
            // `xmax = 0` holds for a row this statement inserted, not for one it updated.
            let (ending, endingValues) = device.endingReplacedInboxes { "$\($0)" }
            let (statement, values) = device.upsert { "$\($0)" }
            let rows = try pool.transaction { connection in
                try connection.query(ending, endingValues)
                return try connection.query(statement + " RETURNING (xmax = 0)", values)
            }
            return rows.first?.first?.integer == 1
        }

        package func device(id: String) throws -> Device? {
            try pool.withConnection { try $0.query("\(Device.selectColumns) WHERE id = $1", [.text(id)]) }
                .first.flatMap(Device.init(row:))
        }

        package func deleteDevice(id: String, routing: WebhookRouting) throws -> Bool {
            try pool.transaction { connection in
                try OutboxFinish.deleteDevice(
                    id: id, at: GatewayClock.milliseconds(), routing: routing, Self.runner(connection))
            }
        }

        package func devices(_ query: DeviceQuery, limit: Int) throws -> [Device] {
            let (statement, values) = query.statement(limit: limit) { "$\($0)" }
            return try pool.withConnection { try $0.query(statement, values) }.compactMap(Device.init(row:))
        }

        package func devices(user: String) throws -> [Device] {
            try pool.withConnection {
                try $0.query("\(Device.selectColumns) WHERE user_id = $1 ORDER BY id", [.text(user)])
            }.compactMap(Device.init(row:))
        }

        // MARK: Pushes and the outbox

        package func acceptPush(
            id: String, idempotencyKey: String?, requestHash: [UInt8], at time: Int64, deliveries: [NewDelivery]
        ) throws -> PushAcceptance {
            let first = Array(deliveries.prefix(PostgresPushInsert.deliveriesPerStatement))
            let pushParameters: [DatabaseValue] = [
                .text(id), idempotencyKey.map { .text($0) } ?? .null, .integer(time), .blob(requestHash),
            ]
            let store = { (connection: PostgresConnection) throws -> Bool in
                let stored = try connection.query(
                    PostgresPushInsert.push(deliveries: first.count),
                    pushParameters + first.flatMap(PostgresPushInsert.parameters(of:)))
                guard !stored.isEmpty else { return false }
                var rest = deliveries.dropFirst(first.count)
                while !rest.isEmpty {
                    let batch = rest.prefix(PostgresPushInsert.deliveriesPerStatement)
                    rest = rest.dropFirst(batch.count)
                    try connection.query(
                        PostgresPushInsert.moreDeliveries(batch.count),
                        [.text(id), .integer(time)] + batch.flatMap(PostgresPushInsert.parameters(of:)))
                }
                return true
            }
            // One statement is a transaction of its own: a push of up to 1,000 deliveries takes
            // one round trip.
            let stored =
                deliveries.count <= first.count
                ? try pool.withConnection(store) : try pool.transaction(store)
            if stored {
                notifier.accepted(NewDelivery.kinds(of: deliveries))
                return .accepted
            }
            guard let idempotencyKey,
                let earlier = try pool.withConnection({
                    try $0.query(
                        "SELECT id, request_hash FROM pushes WHERE idempotency_key = $1", [.text(idempotencyKey)]
                    )
                    .first
                })
            else {
                throw PostgresConnection.Failure(
                    description: "the push was not stored, and its idempotency key names none", connectionLost: false)
            }
            return PushAcceptance(earlier: earlier, requestHash: requestHash)
        }

        package func push(id: String, after: Int64, limit: Int) throws -> PushRecord? {
            try pool.transaction { connection in
                try PushRecord.read(id: id, after: after, limit: limit, Self.runner(connection))
            }
        }

        package func claimDeliveries(
            _ kind: DeliveryKind, limit: Int, at time: Int64, leaseMilliseconds: Int64, owner: String
        ) throws -> [OutboxDelivery] {
            try pool.withConnection { connection in
                try connection.query(
                    Self.claim,
                    [
                        .integer(time), .integer(Int64(limit)), .text(owner), .integer(time + leaseMilliseconds),
                        .text(kind.rawValue),
                    ])
            }.compactMap(OutboxDelivery.init(row:)).sorted { $0.id < $1.id }
        }

        /// The claim: parameters the time, the most to claim, the owner, the lease's end and the
        /// kind. A claimed delivery's next attempt moves to its lease's end, so that it leaves the
        /// due part of `deliveries_due` until the lease lapses, and the next claim reads past none
        /// of the deliveries in flight; the lease test stays for those leased by gateways before
        /// 1.3.3, which did not move it.
        package static let claim = """
            WITH due AS (
                SELECT id FROM deliveries
                WHERE kind = $5 AND status = 'queued' AND next_attempt_at <= $1
                    AND (lease_until IS NULL OR lease_until <= $1)
                ORDER BY next_attempt_at, id LIMIT $2
                FOR UPDATE SKIP LOCKED)
            UPDATE deliveries AS d SET lease_owner = $3, lease_until = $4, next_attempt_at = $4
            FROM due WHERE d.id = due.id
            RETURNING \(OutboxDelivery.claimedColumns)
            """

        package func renewLeases(owner: String, until: Int64) throws {
            try pool.withConnection {
                try $0.query(LeaseStatements.renew { "$\($0)" }, [.integer(until), .text(owner)])
            }
        }

        package func finish(_ ended: [EndedAttempt], routing: WebhookRouting) throws {
            // The burst's plain sends share one statement; every other end keeps its own.
            let sent = ended.filter { OutboxFinish.isPlainSend($0, routing: routing) }
            let others = ended.filter { !OutboxFinish.isPlainSend($0, routing: routing) }
            try pool.transaction { connection in
                if !sent.isEmpty {
                    try connection.query(PostgresSentBurst.statement, PostgresSentBurst.parameters(sent))
                }
                for attempt in others { try OutboxFinish.apply(attempt, routing: routing, Self.runner(connection)) }
            }
        }

        // MARK: The relay's endpoints

        package func addInbox(_ inbox: WebPushInbox) throws {
            let (statement, values) = inbox.insert { "$\($0)" }
            try pool.withConnection { try $0.query(statement, values) }
        }

        package func inbox(idHash: String) throws -> (WebPushInbox, Device?)? {
            try pool.withConnection {
                try $0.query("\(WebPushInbox.selectWithDevice) WHERE i.id_hash = $1", [.text(idHash)])
            }.first.map(WebPushInbox.read(row:))
        }

        package func removeInbox(idHash: String, at time: Int64) throws -> Bool {
            !(try pool.withConnection {
                try $0.query(InboxStatements.remove { "$\($0)" }, [.integer(time), .text(idHash)])
            }).isEmpty
        }

        // MARK: Webhooks

        package func claimWebhookEvents(
            endpoint: String, limit: Int, at time: Int64, expireBefore: Int64, leaseMilliseconds: Int64, owner: String
        ) throws -> WebhookClaim {
            try pool.transaction { connection in
                try WebhookOutbox.claim(
                    endpoint: endpoint, limit: limit, at: time, expireBefore: expireBefore,
                    leaseUntil: time + leaseMilliseconds, owner: owner, locking: Self.skipLocked,
                    Self.runner(connection))
            }
        }

        package func recordWebhookAttempt(
            _ attempt: WebhookAttempt, endpoint: String, sent: [Int64], unsent: [Int64], at time: Int64,
            disableBefore: Int64
        ) throws -> WebhookEndpointState {
            try pool.transaction { connection in
                try WebhookOutbox.record(
                    attempt, endpoint: endpoint, sent: sent, unsent: unsent, at: time, disableBefore: disableBefore,
                    Self.runner(connection))
            }
        }

        package func enableWebhookEndpoint(_ endpoint: String) throws -> Bool {
            try pool.transaction { connection in try WebhookOutbox.enable(endpoint: endpoint, Self.runner(connection)) }
        }

        package func deleteFinishedWebhookEvents(endedBefore time: Int64, limit: Int) throws -> Int {
            try pool.withConnection {
                try $0.query(
                    WebhookOutbox.deleteFinished(locking: Self.skipLocked) { "$\($0)" },
                    [.integer(time), .integer(Int64(limit))])
            }.count
        }

        /// Statements on `connection`, in its open transaction.
        private static func runner(_ connection: PostgresConnection) -> StatementRunner {
            StatementRunner(placeholder: { "$\($0)" }, run: { try connection.query($0, $1) })
        }

        /// None: PostgreSQL's writes spread over the pool's connections, and PostgreSQL counts them.
        package var metrics: [StoreMetric] { [] }

        package func statistics() throws -> GatewayStatistics {
            try pool.transaction { connection in
                var statistics = GatewayStatistics()
                for row in try connection.query("SELECT status, count(*) FROM deliveries GROUP BY status") {
                    if let status = row[0].text.flatMap(DeliveryStatus.init(rawValue:)) {
                        statistics.deliveries[status] = Int(row[1].integer ?? 0)
                    }
                }
                let devices = try connection.query(
                    "SELECT count(*) FILTER (WHERE unregistered_at IS NULL), "
                        + "count(*) FILTER (WHERE unregistered_at IS NOT NULL) FROM devices")
                statistics.activeDevices = Int(devices.first?[0].integer ?? 0)
                statistics.unregisteredDevices = Int(devices.first?[1].integer ?? 0)
                statistics.oldestQueuedAcceptedAt =
                    try connection.query("SELECT min(accepted_at) FROM deliveries WHERE status = 'queued'").first?
                    .first?.integer
                try WebhookOutbox.count(into: &statistics, Self.runner(connection))
                return statistics
            }
        }

        // MARK: Retention and operations

        /// What follows a retention batch's (or a webhook claim's) selection here: instances
        /// working at once take different rows, and none waits.
        private static let skipLocked = " FOR UPDATE SKIP LOCKED"

        package func deleteFinishedDeliveries(endedBefore time: Int64, limit: Int) throws -> Int {
            try pool.withConnection {
                try $0.query(
                    RetentionStatements.deleteFinishedDeliveries(locking: Self.skipLocked) { "$\($0)" },
                    [.integer(time), .integer(Int64(limit))])
            }.count
        }

        package func deleteEmptyPushes(acceptedBefore time: Int64, limit: Int) throws -> Int {
            try pool.withConnection {
                try $0.query(
                    RetentionStatements.deleteEmptyPushes(locking: Self.skipLocked) { "$\($0)" },
                    [.integer(time), .integer(Int64(limit))])
            }.count
        }

        package func heartbeat(_ instance: InstanceRecord, forgetBefore: Int64) throws {
            try pool.transaction { connection in
                let (statement, values) = instance.upsert { "$\($0)" }
                try connection.query(statement, values)
                try connection.query("DELETE FROM instances WHERE heartbeat_at < $1", [.integer(forgetBefore)])
            }
        }

        package func instances() throws -> [InstanceRecord] {
            try pool.withConnection {
                try $0.query("\(InstanceRecord.selectColumns) ORDER BY heartbeat_at DESC, id")
            }.map(InstanceRecord.init(row:))
        }

        package func forgetInstance(id: String) throws {
            _ = try pool.withConnection { try $0.query("DELETE FROM instances WHERE id = $1", [.text(id)]) }
        }

        package func outcomes(since time: Int64) throws -> [OutcomeCount] {
            try pool.withConnection { try $0.query(OutcomeCount.query("$1"), [.integer(time)]) }.compactMap(
                OutcomeCount.init(row:))
        }

        package func retrying(limit: Int) throws -> [RetryingCount] {
            try pool.withConnection { try $0.query(RetryingCount.query("$1"), [.integer(Int64(limit))]) }.map(
                RetryingCount.init(row:))
        }
    }
#endif
