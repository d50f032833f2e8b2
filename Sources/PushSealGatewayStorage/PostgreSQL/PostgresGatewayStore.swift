package import PushSealGatewayModel

#if canImport(CLibPQ)
    internal import PushSealCore

    /// ``GatewayStore`` on PostgreSQL (`"database": "postgres://user@host:port/db"`), shared by
    /// any number of gateway instances: deliveries are claimed with `FOR UPDATE SKIP LOCKED` under
    /// a lease, so two instances never hold the same delivery, and an instance that died leaves
    /// its leases to run out. Once a push is committed, `NOTIFY pushseal_outbox` names the kinds
    /// of its deliveries (sent by an ``OutboxNotifier``, shared by the pushes of a burst), which
    /// wakes idle workers of those kinds everywhere (``OutboxListener``); polling remains the
    /// fallback. The SQL both databases share is the aggregates' stores'; here is what PostgreSQL
    /// does its own way: its migrations, a device's registration, a push's insert in one round
    /// trip, the claim, and a burst of sends in one statement.
    ///
    /// **The lock order.** Every transaction that changes rows several writers reach takes them in
    /// one order, so that none waits on another that waits on it (PostgreSQL would cancel one as a
    /// deadlock): deliveries by id (a recording of outcomes, a device's deletion), then devices by
    /// app and id (an answer that marks one gone, a deletion, a registration), then a device's
    /// relay endpoints. Claims and lease renewals take only rows no one holds (`SKIP LOCKED`), so
    /// they never wait at all.
    package final class PostgresGatewayStore: GatewayStore, SQLExecutor {
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

        // MARK: The executor

        package var dialect: SQLDialect { .postgres }

        package func read(_ statement: String, _ parameters: [DatabaseValue]) throws -> [[DatabaseValue]] {
            try pool.withConnection(writing: false) { try $0.query(statement, parameters) }
        }

        @discardableResult
        package func write(_ statement: String, _ parameters: [DatabaseValue]) throws -> [[DatabaseValue]] {
            try pool.withConnection { try $0.query(statement, parameters) }
        }

        package func transaction<Result>(_ body: @escaping (StatementRunner) throws -> Result) throws -> Result {
            try pool.transaction { try body(Self.runner($0)) }
        }

        /// A transaction that only reads: one snapshot of the database (READ COMMITTED takes one
        /// per statement, so several statements that must agree share a transaction).
        package func readTransaction<Result>(_ body: (StatementRunner) throws -> Result) throws -> Result {
            try pool.transaction(writing: false) { try body(Self.runner($0)) }
        }

        package var writeHealth: StoreWriteHealth { pool.writes.health }

        /// Statements on `connection`, in its open transaction.
        private static func runner(_ connection: PostgresConnection) -> StatementRunner {
            StatementRunner(dialect: .postgres, run: { try connection.query($0, $1) })
        }

        // MARK: What PostgreSQL does its own way

        package func putDevice(_ device: Device) throws -> Bool {
            // `xmax = 0` holds for a row this statement inserted, not for one it updated.
            let (ending, endingValues) = device.endingReplacedInboxes(placeholder: dialect.placeholder)
            let (statement, values) = device.upsert(placeholder: dialect.placeholder)
            let rows = try pool.transaction { connection in
                // The device before its relay endpoints, in the lock order.
                try connection.query(
                    "SELECT 1 FROM devices WHERE id = $1 AND app = $2 FOR UPDATE",
                    [.text(device.id), .text(device.app.name)])
                try connection.query(ending, endingValues)
                return try connection.query(statement + " RETURNING (xmax = 0)", values)
            }
            return rows.first?.first?.integer == 1
        }

        package func acceptPush(
            id: String, in app: AppID, idempotencyKey: String?, requestHash: [UInt8], at time: Int64,
            deliveries: [NewDelivery]
        ) throws -> PushAcceptance {
            let first = Array(deliveries.prefix(PostgresPushInsert.deliveriesPerStatement))
            let pushParameters: [DatabaseValue] = [
                .text(id), idempotencyKey.map { .text($0) } ?? .null, .integer(time), .blob(requestHash),
                .text(app.name),
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
                        "SELECT id, request_hash FROM pushes WHERE idempotency_key = $1 AND app = $2",
                        [.text(idempotencyKey), .text(app.name)]
                    )
                    .first
                })
            else {
                throw PostgresConnection.Failure(
                    description: "the push was not stored, and its idempotency key names none", connectionLost: false)
            }
            return PushAcceptance(earlier: earlier, requestHash: requestHash)
        }

        package func claimDeliveries(
            _ kind: DeliveryKind, from apps: [AppID], limit: Int, at time: Int64, leaseMilliseconds: Int64,
            owner: String
        ) throws -> [OutboxDelivery] {
            // One statement per app, each its own claim, until `limit` is reached: an app whose
            // queue is empty costs one probe of `deliveries_due`.
            try pool.withConnection { connection in
                var claimed: [OutboxDelivery] = []
                for app in apps where claimed.count < limit {
                    claimed += try connection.query(
                        Self.claim,
                        [
                            .integer(time), .integer(Int64(limit - claimed.count)), .text(owner),
                            .integer(time + leaseMilliseconds), .text(kind.rawValue), .text(app.name),
                        ]
                    ).compactMap(OutboxDelivery.init(row:)).sorted { $0.id < $1.id }
                }
                return claimed
            }
        }

        /// The claim of one app: parameters the time, the most to claim, the owner, the lease's
        /// end, the kind and the app. A claimed delivery's next attempt moves to its lease's end,
        /// so that it leaves the due part of `deliveries_due` until the lease lapses, and the next
        /// claim reads past none of the deliveries in flight; the lease test stays for those
        /// leased by gateways before 1.3.3, which did not move it.
        package static let claim = """
            WITH due AS (
                SELECT id FROM deliveries
                WHERE kind = $5 AND app = $6 AND status = 'queued' AND next_attempt_at <= $1
                    AND (lease_until IS NULL OR lease_until <= $1)
                ORDER BY next_attempt_at, id LIMIT $2
                FOR UPDATE SKIP LOCKED)
            UPDATE deliveries AS d SET lease_owner = $3, lease_until = $4, next_attempt_at = $4
            FROM due WHERE d.id = due.id
            RETURNING \(OutboxDelivery.claimedColumns)
            """

        /// Records `ended` in one transaction that takes its rows in the lock order (the type's
        /// documentation): the deliveries first, by id, then the devices an answer marks gone, by
        /// app and id. Two transactions that take rows in one order wait
        /// for each other at most; in two orders, PostgreSQL cancels one as a deadlock.
        package func finish(_ ended: [EndedAttempt], routing: WebhookRouting) throws {
            // The burst's plain sends share one statement; every other end keeps its own, in the
            // order of their devices.
            var (sent, others): ([EndedAttempt], [EndedAttempt]) = ([], [])
            for attempt in ended {
                if OutboxTransition(attempt).isPlainSend(routing: routing, in: attempt.delivery.app) {
                    sent.append(attempt)
                } else {
                    others.append(attempt)
                }
            }
            others.sort {
                ($0.delivery.app.name, $0.delivery.deviceID, $0.delivery.id)
                    < ($1.delivery.app.name, $1.delivery.deviceID, $1.delivery.id)
            }
            try pool.transaction { connection in
                try connection.query(Self.lockDeliveries, [.text(PostgresSentBurst.numbers(ended.map(\.delivery.id)))])
                if !sent.isEmpty {
                    try connection.query(PostgresSentBurst.statement, PostgresSentBurst.parameters(sent))
                }
                for attempt in others { try OutboxFinish.apply(attempt, routing: routing, Self.runner(connection)) }
            }
        }

        /// Locks the deliveries of an array of ids (parameter 1) in id order, for the transaction.
        package static let lockDeliveries =
            "SELECT id FROM deliveries WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE"

        /// None: PostgreSQL's writes spread over the pool's connections, and PostgreSQL counts them.
        package var metrics: [StoreMetric] { [] }
    }
#endif
