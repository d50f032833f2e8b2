package import PushSealGatewayModel

#if canImport(CLibPQ)
    internal import PushSealCore

    /// How a PostgreSQL store queues a push in as few round trips as the server allows: one
    /// statement stores the push and its deliveries and, being alone, is its own transaction. A
    /// push of more than ``deliveriesPerStatement`` deliveries adds a statement per further batch
    /// of them, all in one transaction. The outbox notification is sent after the commit, by the
    /// store's ``OutboxNotifier``, not by these statements.
    ///
    /// Each delivery is a row of `VALUES`, each parameter typed by a cast (an untyped one would be
    /// text, which no bigint or bytea column takes); the push's id and time are parameters 1 and 3
    /// of the first statement and 1 and 2 of the others. A push whose idempotency key is taken
    /// inserts nothing: its first statement returns no row.
    package enum PostgresPushInsert {
        /// The most deliveries in one statement: 11 parameters each, well within PostgreSQL's
        /// 65,535 a statement.
        package static let deliveriesPerStatement = 1_000

        /// The columns a delivery row gives, in the order ``rows(_:from:)`` writes them.
        private static let deliveryColumns =
            "device_id, kind, address, environment, headers, body, expiration, app, receipt_id, display_hash, failure_hash"
        /// ``deliveryColumns`` as the `VALUES` list's, aliased `v`.
        private static let rowColumns = deliveryColumns.split(separator: ", ").map { "v.\($0)" }.joined(separator: ", ")
        private static let insertColumns =
            "INSERT INTO deliveries (push_id, \(deliveryColumns), next_attempt_at, accepted_at, status) "

        /// The first statement, for `count` deliveries (0 to ``deliveriesPerStatement``): parameters
        /// 1–5 the push (id, idempotency key, time, request hash, app), then 11 per delivery. It returns
        /// one row when the push was stored, none when its idempotency key was taken. The texts
        /// for up to ``keptStatements`` deliveries are built once, not for every push.
        package static func push(deliveries count: Int) -> String {
            count < keptPushStatements.count ? keptPushStatements[count] : buildPush(deliveries: count)
        }

        /// How many deliveries the kept statement texts go up to: a user's devices, which a push
        /// rarely exceeds.
        private static let keptStatements = 32

        private static let keptPushStatements = (0...keptStatements).map { buildPush(deliveries: $0) }

        private static func buildPush(deliveries count: Int) -> String {
            var statement =
                "WITH push AS (INSERT INTO pushes (id, idempotency_key, accepted_at, request_hash, app) "
                + "VALUES ($1, $2, $3, $4, $5) ON CONFLICT (idempotency_key, app) DO NOTHING RETURNING id)"
            if count > 0 {
                statement +=
                    ", queued AS (\(insertColumns)SELECT push.id, \(rowColumns), $3, $3, 'queued' "
                    + "FROM push CROSS JOIN (VALUES \(rows(count, from: 6))) AS v (\(deliveryColumns)))"
            }
            // The data-modifying parts run whatever the final SELECT reads.
            return statement + " SELECT 1 FROM push"
        }

        /// A further statement, for `count` more deliveries: parameters 1 and 2 the push's id and
        /// time, then 11 per delivery.
        package static func moreDeliveries(_ count: Int) -> String {
            "\(insertColumns)SELECT $1, \(rowColumns), $2, $2, 'queued' "
                + "FROM (VALUES \(rows(count, from: 3))) AS v (\(deliveryColumns))"
        }

        /// The 11 parameters of `delivery`, in the order of the rows' columns.
        package static func parameters(of delivery: NewDelivery) -> [DatabaseValue] {
            let environment: DatabaseValue =
                if case .apns(_, _, let environment, _) = delivery.device.channel {
                    .text(environment.rawValue)
                } else {
                    .null
                }
            return [
                .text(delivery.device.id), .text(delivery.device.channel.kind.rawValue),
                .text(delivery.device.channel.address), environment, .text(OutboxHeaders.text(delivery.headers)),
                .blob(delivery.body), delivery.expiration.map { .integer($0) } ?? .null,
                .text(delivery.device.app.name),
            ] + delivery.receiptParameters
        }

        /// `count` rows of 11 typed markers, the first at parameter `first`.
        private static func rows(_ count: Int, from first: Int) -> String {
            (0..<count).map { row in
                let base = first + row * 11
                return "($\(base)::text, $\(base + 1)::text, $\(base + 2)::text, $\(base + 3)::text, "
                    + "$\(base + 4)::text, $\(base + 5)::bytea, $\(base + 6)::bigint, $\(base + 7)::text, "
                    + "$\(base + 8)::text, $\(base + 9)::bytea, $\(base + 10)::bytea)"
            }.joined(separator: ", ")
        }

    }
#endif
