import Dispatch
import PushSealGatewayModel
import PushSealGatewayStorage
import PushSealTestSupport
import Synchronization
import Testing

@testable import PushSealGateway

/// The stores' outbox rules, without HTTP, on SQLite and on PostgreSQL.
@Suite("pushseal-gateway store")
struct GatewayStoreTests {
    static let topic = "com.example.shop"

    static func device(_ id: String, registeredAt: Int64) -> Device {
        Device(
            id: id, user: "u",
            channel: .apns(
                token: String(repeating: "ab", count: 32), topic: topic, environment: .production, publicKeyJWK: "{}"),
            registeredAt: registeredAt, unregisteredAt: nil)
    }

    static func subscription(_ id: String, endpoint: String, registeredAt: Int64) -> Device {
        Device(
            id: id, user: "u", channel: .webPush(endpoint: endpoint, p256dh: "BP", auth: "au"),
            registeredAt: registeredAt, unregisteredAt: nil)
    }

    /// A new, migrated store of `backend` in `directory`.
    static func store(_ backend: GatewayBackend, in directory: TemporaryDirectory) throws -> any GatewayStore {
        let store = try backend.store(try backend.newDatabase(), in: directory)
        try store.migrate()
        return store
    }

    /// A delivery to device `d`, registered in `store` at 100 (the one device of most tests here).
    static func registeredDelivery(in store: any GatewayStore) throws -> NewDelivery {
        let device = Self.device("d", registeredAt: 100)
        _ = try store.putDevice(device)
        return NewDelivery(device: device, headers: [("apns-topic", Self.topic)], body: [1], expiration: nil)
    }

    /// Stores push `p`, accepted at 200, of `count` deliveries to device `d` (registered first).
    static func acceptPush(of count: Int, in store: any GatewayStore) throws -> PushAcceptance {
        let delivery = try registeredDelivery(in: store)
        return try store.acceptPush(
            id: "p", idempotencyKey: nil, requestHash: [], at: 200, deliveries: Array(repeating: delivery, count: count)
        )
    }

    /// A new, migrated PostgreSQL store of one connection, for the tests that read its plans.
    static func postgresStore() throws -> PostgresGatewayStore {
        let store = PostgresGatewayStore(
            url: try GatewayBackend.postgres.newDatabase(), passwordFile: nil, connections: 1)
        try store.migrate()
        return store
    }

    @Test(
        "a delivery still queued for a token another push found gone is claimed as gone, and only then",
        arguments: GatewayBackend.allCases)
    func goneTokens(_ backend: GatewayBackend) throws {
        let directory = TemporaryDirectory()
        let store = try Self.store(backend, in: directory)
        let delivery = try Self.registeredDelivery(in: store)
        #expect(
            try store.acceptPush(id: "p1", idempotencyKey: nil, requestHash: [1], at: 200, deliveries: [delivery])
                == .accepted)
        #expect(
            try store.acceptPush(id: "p2", idempotencyKey: nil, requestHash: [1], at: 200, deliveries: [delivery])
                == .accepted)
        let first = try store.claimDeliveries(.apns, limit: 1, at: 300, leaseMilliseconds: 1_000, owner: "w")
        #expect(first.count == 1 && first[0].addressIsGone == false)
        try store.finish(
            first[0], .unregistered(reason: "Unregistered", timestamp: 250), attempts: 1, at: 300, routing: .none)
        let second = try store.claimDeliveries(.apns, limit: 1, at: 300, leaseMilliseconds: 1_000, owner: "w")
        #expect(second.count == 1 && second[0].addressIsGone, "the device was marked: the second is not sent")

        _ = try store.putDevice(Self.device("d", registeredAt: 400))
        #expect(
            try store.acceptPush(id: "p3", idempotencyKey: nil, requestHash: [1], at: 500, deliveries: [delivery])
                == .accepted)
        let third = try store.claimDeliveries(.apns, limit: 5, at: 600, leaseMilliseconds: 1_000, owner: "w")
        #expect(third.allSatisfy { !$0.addressIsGone }, "registering again clears the mark")
    }

    @Test(
        "a claim is exclusive and a lease that ran out is claimed again; an idempotency key stores one push",
        arguments: GatewayBackend.allCases)
    func claims(_ backend: GatewayBackend) throws {
        let directory = TemporaryDirectory()
        let store = try Self.store(backend, in: directory)
        let device = Self.device("d", registeredAt: 100)
        #expect(try store.putDevice(device), "new")
        #expect(try store.putDevice(device) == false, "updated")
        let delivery = NewDelivery(
            device: device, headers: [("apns-topic", Self.topic)], body: [0, 1, 0xFF], expiration: nil)
        #expect(
            try store.acceptPush(
                id: "p1", idempotencyKey: "k", requestHash: [1], at: 200, deliveries: [delivery, delivery]) == .accepted
        )
        #expect(
            try store.acceptPush(id: "p2", idempotencyKey: "k", requestHash: [1], at: 201, deliveries: [delivery])
                == .repeated("p1"))
        #expect(try store.push(id: "p2") == nil)

        let first = try store.claimDeliveries(.apns, limit: 1, at: 300, leaseMilliseconds: 1_000, owner: "a")
        let second = try store.claimDeliveries(.apns, limit: 5, at: 300, leaseMilliseconds: 1_000, owner: "b")
        #expect(first.count == 1 && second.count == 1 && first[0].id != second[0].id)
        #expect(first[0].body == [0, 1, 0xFF] && first[0].headers.map(\.value) == [Self.topic])
        #expect(try store.claimDeliveries(.apns, limit: 5, at: 1_299, leaseMilliseconds: 1_000, owner: "c").isEmpty)
        try store.renewLeases(owner: "a", until: 5_000)
        let reclaimed = try store.claimDeliveries(.apns, limit: 5, at: 1_300, leaseMilliseconds: 1_000, owner: "c")
        #expect(reclaimed.map(\.id) == [second[0].id], "b's lease ran out; a renewed its own")
        try store.finish(first[0], .sent(apnsID: "A"), attempts: 1, at: 1_400, routing: .none)
        try store.finish(
            reclaimed[0], .retry(at: 9_000, reason: "TooManyRequests"), attempts: 2, at: 1_400, routing: .none)
        let states = try #require(try store.push(id: "p1")).deliveries
        #expect(states.map(\.status) == [.sent, .queued] && states.map(\.attempts) == [1, 2])
        #expect(
            try store.retrying(limit: 5) == [RetryingCount(reason: "TooManyRequests", count: 1, nextAttemptAt: 9_000)],
            "the queued delivery waits after its last attempt's reason; the sent one is not counted")
        #expect(try store.retrying(limit: 0).isEmpty)
        #expect(try store.claimDeliveries(.apns, limit: 5, at: 8_999, leaseMilliseconds: 1_000, owner: "c").isEmpty)
        #expect(try store.claimDeliveries(.apns, limit: 5, at: 9_000, leaseMilliseconds: 1_000, owner: "c").count == 1)
        #expect(try store.statistics().deliveries == [.sent: 1, .queued: 1])
    }

    @Test(
        "APNs and Web Push deliveries are claimed apart; a gone endpoint marks its subscription, not one registered again elsewhere",
        arguments: GatewayBackend.allCases)
    func kinds(_ backend: GatewayBackend) throws {
        let directory = TemporaryDirectory()
        let store = try Self.store(backend, in: directory)
        let phone = Self.device("phone", registeredAt: 100)
        let browser = Self.subscription("browser", endpoint: "https://push.example/s/1", registeredAt: 100)
        _ = try store.putDevice(phone)
        #expect(try store.putDevice(browser), "new")
        #expect(try store.device(id: "browser") == browser, "read back whole")
        #expect(try store.devices(user: "u").map(\.id) == ["browser", "phone"])
        let deliveries = [
            NewDelivery(device: phone, headers: [("apns-topic", Self.topic)], body: [1], expiration: nil),
            NewDelivery(device: browser, headers: [("urgency", "high")], body: [2], expiration: 900),
        ]
        #expect(
            try store.acceptPush(id: "p1", idempotencyKey: nil, requestHash: [1], at: 200, deliveries: deliveries)
                == .accepted)
        #expect(
            try store.acceptPush(id: "p2", idempotencyKey: nil, requestHash: [1], at: 200, deliveries: deliveries)
                == .accepted)

        let web = try store.claimDeliveries(.webPush, limit: 1, at: 300, leaseMilliseconds: 1_000, owner: "w")
        #expect(web.map(\.kind) == [.webPush] && web[0].address == "https://push.example/s/1")
        #expect(web[0].environment == nil && web[0].expiration == 900 && web[0].body == [2])
        #expect(web[0].headers.map(\.name) == ["urgency"])
        let apns = try store.claimDeliveries(.apns, limit: 5, at: 300, leaseMilliseconds: 1_000, owner: "a")
        #expect(apns.map(\.kind) == [.apns, .apns] && apns.allSatisfy { $0.environment == .production })

        try store.finish(
            web[0], .unregistered(reason: "HTTP 410", timestamp: nil), attempts: 1, at: 300, routing: .none)
        #expect(try store.device(id: "browser")?.unregisteredAt == 300, "the endpoint is gone")
        #expect(try store.device(id: "phone")?.unregisteredAt == nil)
        let second = try store.claimDeliveries(.webPush, limit: 5, at: 300, leaseMilliseconds: 1_000, owner: "w")
        #expect(second.count == 1 && second[0].addressIsGone, "p2's delivery is not sent")

        // The browser subscribes again, elsewhere: an answer about the old endpoint leaves it alone.
        _ = try store.putDevice(Self.subscription("browser", endpoint: "https://push.example/s/2", registeredAt: 400))
        try store.finish(
            second[0], .unregistered(reason: "HTTP 404", timestamp: nil), attempts: 1, at: 500, routing: .none)
        #expect(try store.device(id: "browser")?.unregisteredAt == nil)
        #expect(try store.statistics().activeDevices == 2)
    }

    @Test(
        "a push of more deliveries than one statement holds is stored whole, every field intact; one of none is stored too",
        arguments: GatewayBackend.allCases)
    func largePushes(_ backend: GatewayBackend) throws {
        let directory = TemporaryDirectory()
        let store = try Self.store(backend, in: directory)
        // PostgreSQL stores 1,000 deliveries a statement: 2,345 take three, in one transaction.
        let count = 2_345
        let deliveries = (0..<count).map { index in
            let device =
                index % 2 == 0
                ? Self.device("d\(index)", registeredAt: 100)
                : Self.subscription("w\(index)", endpoint: "https://push.example/\(index)", registeredAt: 100)
            return NewDelivery(
                device: device, headers: [("apns-topic", Self.topic), ("n", "\(index)")],
                body: [UInt8(index % 256), 0, 0xFF], expiration: index % 3 == 0 ? nil : Int64(index))
        }
        #expect(
            try store.acceptPush(id: "big", idempotencyKey: "k", requestHash: [7], at: 500, deliveries: deliveries)
                == .accepted)
        let stored = try #require(try store.push(id: "big", after: 0, limit: 5_000))
        #expect(stored.acceptedAt == 500 && stored.deliveries.count == count && stored.counts == [.queued: count])
        #expect(
            try store.acceptPush(id: "again", idempotencyKey: "k", requestHash: [7], at: 501, deliveries: deliveries)
                == .repeated("big"))
        #expect(
            try store.acceptPush(id: "other", idempotencyKey: "k", requestHash: [8], at: 501, deliveries: [])
                == .conflict("big"))
        var claimed: [OutboxDelivery] = []
        for kind in [DeliveryKind.apns, .webPush] {
            claimed += try store.claimDeliveries(kind, limit: 5_000, at: 600, leaseMilliseconds: 1_000, owner: "w")
        }
        #expect(claimed.count == count, "nothing of the repeat or the conflict was queued")
        for delivery in claimed {
            let index = try #require(Int(delivery.deviceID.dropFirst()))
            #expect(delivery.pushID == "big" && delivery.acceptedAt == 500)
            #expect(delivery.kind == (index % 2 == 0 ? .apns : .webPush))
            #expect(delivery.address == deliveries[index].device.channel.address)
            #expect(
                delivery.body == [UInt8(index % 256), 0, 0xFF] && delivery.expiration == deliveries[index].expiration)
            #expect(delivery.headers.map(\.value) == [Self.topic, "\(index)"])
            #expect(delivery.environment == (index % 2 == 0 ? .production : nil))
        }
        #expect(
            try store.acceptPush(id: "empty", idempotencyKey: nil, requestHash: [], at: 700, deliveries: [])
                == .accepted)
        #expect(try store.push(id: "empty")?.deliveries == [])
    }

    @Test(
        "a burst of ends is recorded whole in one transaction, each as it ended: sends, a retry, a failure, a gone token",
        arguments: GatewayBackend.allCases)
    func burstOfEnds(_ backend: GatewayBackend) throws {
        let directory = TemporaryDirectory()
        let store = try Self.store(backend, in: directory)
        let device = Self.device("d", registeredAt: 100)
        _ = try store.putDevice(device)
        let delivery = NewDelivery(
            device: device, headers: [("apns-topic", Self.topic)], body: [9, 9], expiration: nil)
        #expect(
            try store.acceptPush(
                id: "p", idempotencyKey: nil, requestHash: [], at: 200, deliveries: Array(repeating: delivery, count: 6)
            )
                == .accepted)
        let claimed = try store.claimDeliveries(.apns, limit: 6, at: 300, leaseMilliseconds: 1_000, owner: "w")
        #expect(claimed.count == 6)
        let outcomes: [DeliveryOutcome] = [
            .sent(apnsID: "A-1"), .retry(at: 5_000, reason: "TooManyRequests"), .sent(apnsID: nil),
            .failed(reason: "BadTopic"), .sent(apnsID: "A-3"), .unregistered(reason: "Unregistered", timestamp: 250),
        ]
        try store.finish(
            zip(claimed, outcomes).enumerated().map { index, pair in
                EndedAttempt(delivery: pair.0, outcome: pair.1, attempts: index + 1, time: 400 + Int64(index))
            }, routing: .none)
        let states = try #require(try store.push(id: "p")).deliveries
        #expect(states.map(\.status) == [.sent, .queued, .sent, .failed, .sent, .unregistered])
        #expect(states.map(\.attempts) == [1, 2, 3, 4, 5, 6])
        #expect(states.map(\.apnsID) == ["A-1", nil, nil, nil, "A-3", nil])
        #expect(states.map(\.reason) == [nil, "TooManyRequests", nil, "BadTopic", nil, "Unregistered"])
        #expect(try store.device(id: "d")?.unregisteredAt == 405, "the gone token marked its device")
        // Ended deliveries keep no body and no lease: only the retried one is claimed again, when due.
        #expect(try store.claimDeliveries(.apns, limit: 6, at: 4_999, leaseMilliseconds: 1_000, owner: "v").isEmpty)
        let retried = try store.claimDeliveries(.apns, limit: 6, at: 5_000, leaseMilliseconds: 1_000, owner: "v")
        #expect(retried.map(\.id) == [claimed[1].id] && retried.first?.body == [9, 9])
    }

    @Test(
        "a database of schema 1 (APNs only) migrates with its devices and queued deliveries intact",
        arguments: GatewayBackend.allCases)
    func migrationFromSchemaOne(_ backend: GatewayBackend) throws {
        let directory = TemporaryDirectory()
        let database = try backend.newDatabase()
        let token = String(repeating: "cd", count: 32)
        // One byte of body, as each database writes a bytes literal.
        let blob = backend == .sqlite ? "X'01'" : "'\\x01'"
        let rows = """
            INSERT INTO devices VALUES ('d', 'u', '\(token)', '\(Self.topic)', 'sandbox', '{}', 100, NULL);
            INSERT INTO pushes VALUES ('p', NULL, 200);
            INSERT INTO deliveries (push_id, device_id, token, environment, headers, body, status, next_attempt_at,
                accepted_at)
            VALUES ('p', 'd', '\(token)', 'sandbox', '[]', \(blob), 'queued', 200, 200);
            """
        switch backend {
        case .sqlite:
            let old = try SQLiteDatabase(path: directory.file("gateway.db"))
            try old.execute(
                "BEGIN; \(SQLiteGatewayStore.migrations[0]); \(rows) PRAGMA user_version = 1; COMMIT")
        case .postgres:
            let old = PostgresGatewayStore(url: database, passwordFile: nil, connections: 2)
            try old.pool.withConnection { connection in
                try connection.execute(
                    "BEGIN; \(PostgresGatewayStore.migrations[0]); \(rows) "
                        + "CREATE TABLE pushseal_schema (version INTEGER NOT NULL); "
                        + "INSERT INTO pushseal_schema VALUES (1); COMMIT")
            }
        }
        let store = try backend.store(database, in: directory)
        try store.migrate()
        let device = try #require(try store.device(id: "d"))
        #expect(device.channel == .apns(token: token, topic: Self.topic, environment: .sandbox, publicKeyJWK: "{}"))
        let claimed = try store.claimDeliveries(.apns, limit: 5, at: 300, leaseMilliseconds: 1_000, owner: "w")
        #expect(claimed.count == 1 && claimed[0].address == token && claimed[0].environment == .sandbox)
        #expect(claimed.first?.body == [1])
        #expect(try store.claimDeliveries(.webPush, limit: 5, at: 300, leaseMilliseconds: 1_000, owner: "w").isEmpty)
    }

    @Test(
        "retention keeps a push while any record of its deliveries remains, ended or not, and deletes it once none does",
        arguments: GatewayBackend.allCases)
    func retentionKeepsPushesWithRecords(_ backend: GatewayBackend) throws {
        let directory = TemporaryDirectory()
        let store = try Self.store(backend, in: directory)
        #expect(try Self.acceptPush(of: 1, in: store) == .accepted)  // accepted at 200
        let claimed = try store.claimDeliveries(.apns, limit: 1, at: 300, leaseMilliseconds: 60_000, owner: "w")
        try store.finish(claimed[0], .sent(apnsID: "A"), attempts: 1, at: 10_000, routing: .none)
        // Past the push's acceptance, before its delivery's end: the record stays, and so must the push.
        #expect(try store.deleteFinishedDeliveries(endedBefore: 5_000, limit: 10) == 0)
        #expect(try store.deleteEmptyPushes(acceptedBefore: 5_000, limit: 10) == 0)
        #expect(try store.push(id: "p")?.deliveries.count == 1)
        #expect(try store.deleteFinishedDeliveries(endedBefore: 20_000, limit: 10) == 1)
        #expect(try store.deleteEmptyPushes(acceptedBefore: 20_000, limit: 10) == 1)
        #expect(try store.push(id: "p") == nil)
    }

    /// The statements a running gateway repeats on its writer, whatever the outbox's size: a
    /// worker's lease renewal (every third of a lease) and the retention sweep's (every minute).
    static let repeatedStatements: [(name: String, sql: @Sendable ((Int) -> String) -> String)] = [
        ("lease renewal", LeaseStatements.renew),
        ("ended deliveries", { RetentionStatements.deleteFinishedDeliveries(locking: "", placeholder: $0) }),
        ("empty pushes", { RetentionStatements.deleteEmptyPushes(locking: "", placeholder: $0) }),
        ("ended webhook events", { WebhookOutbox.deleteFinished(locking: "", placeholder: $0) }),
    ]

    @Test("the statements a running gateway repeats find their rows through an index, never by reading a whole table")
    func repeatedStatementsUseIndexes() throws {
        // On SQLite, whose planner has no statistics to weigh, the plan follows the indexes alone:
        // each step is a SEARCH (through an index) or a SCAN (every row). PostgreSQL's plan depends
        // on its statistics, so its schema mirrors SQLite's indexes instead (`deliveries_by_owner`,
        // `webhook_events_stale`).
        let directory = TemporaryDirectory()
        try SQLiteGatewayStore(path: directory.file("gateway.db")).migrate()
        let sqlite = try SQLiteDatabase(path: directory.file("gateway.db"))
        let tables = try sqlite.read("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { $0[0].text }
        #expect(tables.contains("deliveries") && tables.contains("webhook_events"))
        for statement in Self.repeatedStatements {
            let plan = try sqlite.read("EXPLAIN QUERY PLAN " + statement.sql { "?\($0)" }).compactMap { $0[3].text }
            let scans = plan.filter { step in tables.contains { step == "SCAN \($0)" || step.hasPrefix("SCAN \($0) ") }
            }
            #expect(!plan.isEmpty && scans.isEmpty, "\(statement.name): \(plan)")
        }
    }

    @Test(
        "a burst of outcomes is recorded whole: sent ones with their APNs ids byte for byte, however odd, beside a retry and a failure",
        arguments: GatewayBackend.allCases)
    func outcomeBurst(_ backend: GatewayBackend) throws {
        let directory = TemporaryDirectory()
        let store = try Self.store(backend, in: directory)
        #expect(try Self.acceptPush(of: 7, in: store) == .accepted)
        let claimed = try store.claimDeliveries(.apns, limit: 7, at: 300, leaseMilliseconds: 60_000, owner: "a")
        #expect(claimed.count == 7)
        // Each a way to break an array literal written carelessly, or NULL taken for a word.
        let apnsIDs: [String?] = [#"a"b\c"#, "NULL", nil, "{1,2}", " spaced, \u{e9}\u{301}\u{1F512} "]
        let outcomes: [DeliveryOutcome] =
            apnsIDs.map { .sent(apnsID: $0) } + [
                .retry(at: 9_000, reason: "TooManyRequests"), .failed(reason: "BadTopic"),
            ]
        try store.finish(
            zip(claimed, outcomes).enumerated().map { index, pair in
                EndedAttempt(delivery: pair.0, outcome: pair.1, attempts: index + 1, time: 400)
            }, routing: .none)
        let states = try #require(try store.push(id: "p")).deliveries
        #expect(states.map(\.status) == [.sent, .sent, .sent, .sent, .sent, .queued, .failed])
        #expect(states.prefix(5).map(\.apnsID) == apnsIDs)
        #expect(states.map(\.attempts) == Array(1...7))
        #expect(states.map(\.reason) == [nil, nil, nil, nil, nil, "TooManyRequests", "BadTopic"])
        #expect(
            try store.claimDeliveries(.apns, limit: 7, at: 9_000, leaseMilliseconds: 1_000, owner: "b").map(\.id)
                == [claimed[5].id], "the retry alone is due again")
    }

    @Test("a PostgreSQL burst of sends is one update through the primary key, as the plan it is prepared with")
    func sentBurstUsesPrimaryKey() throws {
        let store = try Self.postgresStore()
        #expect(try Self.acceptPush(of: 2_000, in: store) == .accepted)
        // The generic plan, which a prepared statement settles on; an array of another type than
        // the key's (numeric, text) would join every row of the outbox instead.
        let plan = try store.pool.withConnection { connection in
            try connection.execute(
                "ANALYZE deliveries; SET plan_cache_mode = force_generic_plan; "
                    + "PREPARE sent_burst AS \(PostgresSentBurst.statement)")
            defer { _ = try? connection.execute("DEALLOCATE sent_burst; RESET plan_cache_mode") }
            return try connection.query(
                "EXPLAIN (FORMAT JSON) EXECUTE sent_burst('{1,2}', '{a,b}', '{1,1}', '{300,300}')"
            ).first?.first?.text ?? ""
        }
        #expect(plan.contains("deliveries_pkey") && !plan.contains("Seq Scan"), "\(plan)")
    }

    @Test("a PostgreSQL push's statement runs no trigger: no foreign key checks each delivery's push there")
    func pushStatementRunsNoTrigger() throws {
        let store = try Self.postgresStore()
        let delivery = try Self.registeredDelivery(in: store)
        let parameters: [DatabaseValue] =
            [.text("p"), .null, .integer(200), .blob([])]
            + Array(repeating: delivery, count: 3).flatMap(PostgresPushInsert.parameters(of:))
        // As PostgreSQL ran it: the key's check was a trigger, called once per delivery stored.
        let plan = try store.pool.withConnection { connection in
            try connection.query(
                "EXPLAIN (ANALYZE, FORMAT JSON) " + PostgresPushInsert.push(deliveries: 3), parameters
            ).first?.first?.text ?? ""
        }
        #expect(plan.contains("\"Triggers\"") && !plan.contains("Trigger Name"), "\(plan)")
        #expect(
            try store.push(id: "p", after: 0, limit: 10)?.deliveries.count == 3, "the push and its deliveries stored")
    }

    @Test("a PostgreSQL delivery's sealed body stays in its row: none is tried for compression or moved out")
    func bodiesStayInTheirRows() throws {
        let store = try Self.postgresStore()
        let body = try Self.acceptSealedSizedPush(in: store)
        #expect(try Self.toastChunks(in: store) == 0, "no chunk in the TOAST table")
        let sizes = try store.pool.withConnection {
            try $0.query("SELECT pg_column_size(body) FROM deliveries ORDER BY id").map { $0[0].integer }
        }
        #expect(sizes == [2_404, 2_404], "each body in its row as it came, with a 4-byte header")
        #expect(
            try store.claimDeliveries(.apns, limit: 2, at: 300, leaseMilliseconds: 1_000, owner: "a").map(\.body)
                == [body, body])
    }

    @Test("a PostgreSQL outbox queued at schema 8 is delivered at schema 9: a body in TOAST chunks is claimed whole")
    func bodiesQueuedBeforeSchema9() throws {
        let store = PostgresGatewayStore(
            url: try GatewayBackend.postgres.newDatabase(), passwordFile: nil, connections: 1)
        #expect(try store.migrate(through: 8) == SchemaChange(from: 0, to: 8))
        let body = try Self.acceptSealedSizedPush(in: store)
        #expect(try Self.toastChunks(in: store) == 4, "schema 8 stored each body as two chunks")
        #expect(try store.migrate() == SchemaChange(from: 8, to: PostgresGatewayStore.migrations.count))
        let claimed = try store.claimDeliveries(.apns, limit: 2, at: 300, leaseMilliseconds: 1_000, owner: "a")
        #expect(claimed.map(\.body) == [body, body])
        try store.finish(
            claimed.map { EndedAttempt(delivery: $0, outcome: .sent(apnsID: nil), attempts: 1, time: 400) },
            routing: .none)
        #expect(try Self.toastChunks(in: store) == 0, "the chunks went with the bodies of the deliveries that ended")
    }

    /// Stores push `p` of two deliveries to device `d` whose body is as a sealed payload is: past
    /// PostgreSQL's default TOAST target of some 2 KB, and incompressible; the body.
    static func acceptSealedSizedPush(in store: PostgresGatewayStore) throws -> [UInt8] {
        let device = try Self.registeredDelivery(in: store).device
        let body = (0..<2_400).map { _ in UInt8.random(in: .min ... .max) }
        let delivery = NewDelivery(device: device, headers: [("apns-topic", Self.topic)], body: body, expiration: nil)
        #expect(
            try store.acceptPush(
                id: "p", idempotencyKey: nil, requestHash: [], at: 200, deliveries: [delivery, delivery])
                == .accepted)
        return body
    }

    /// The live chunks in the TOAST table of PostgreSQL's `deliveries`.
    static func toastChunks(in store: PostgresGatewayStore) throws -> Int64? {
        try store.pool.withConnection { connection in
            let toast =
                try connection.query(
                    "SELECT reltoastrelid::regclass::text FROM pg_class WHERE oid = 'deliveries'::regclass"
                ).first?.first?.text ?? "no TOAST table"
            return try connection.query("SELECT count(*) FROM \(toast)").first?.first?.integer
        }
    }

    @Test("a PostgreSQL claim reads past none of the deliveries in flight: their next attempt is their lease's end")
    func claimSkipsDeliveriesInFlight() throws {
        let store = try Self.postgresStore()
        #expect(try Self.acceptPush(of: 300, in: store) == .accepted)
        let inFlight = try store.claimDeliveries(.apns, limit: 290, at: 300, leaseMilliseconds: 60_000, owner: "a")
        #expect(inFlight.count == 290)
        // The next claim, as the plan PostgreSQL runs it through deliveries_due, on a table too
        // small for the planner to prefer that index by itself.
        let plan = try store.pool.withConnection { connection in
            try connection.execute("ANALYZE deliveries; SET enable_seqscan = off; SET enable_bitmapscan = off")
            defer { _ = try? connection.execute("RESET enable_seqscan; RESET enable_bitmapscan") }
            return try connection.query(
                "EXPLAIN (ANALYZE, FORMAT JSON) " + PostgresGatewayStore.claim,
                [.integer(400), .integer(5), .text("b"), .integer(60_400), .text(DeliveryKind.apns.rawValue)]
            ).first?.first?.text ?? ""
        }
        #expect(plan.contains("deliveries_due"), "\(plan)")
        let removed = plan.matches(of: /"Rows Removed by Filter": (\d+)/).compactMap { Int($0.output.1) }
        #expect(removed.reduce(0, +) == 0, "the claim read past leased deliveries: \(removed)")
        let rest = try store.claimDeliveries(.apns, limit: 10, at: 500, leaseMilliseconds: 60_000, owner: "c")
        #expect(rest.count == 5, "the explained claim took 5 of the 10 free; 5 are left")
        #expect(Set(rest.map(\.id)).isDisjoint(with: inFlight.map(\.id)))
        let lapsed = try store.claimDeliveries(.apns, limit: 300, at: 60_300, leaseMilliseconds: 1_000, owner: "d")
        #expect(lapsed.map(\.id) == inFlight.map(\.id), "a's leases lapsed at 60,300: due again, in order")
    }

    @Test("a PostgreSQL connection prepares each statement once, keeps at most 64, and answers the same after evicting")
    func preparedStatements() throws {
        let store = PostgresGatewayStore(
            url: try GatewayBackend.postgres.newDatabase(), passwordFile: nil, connections: 1)
        try store.pool.withConnection { connection in
            let limit = PostgresConnection.preparedStatements
            func sum(_ statement: Int, _ value: Int64) throws -> Int64? {
                try connection.query("SELECT $1::bigint + \(statement)", [.integer(value)]).first?[0].integer
            }
            func kept() throws -> Int64? {
                try connection.query("SELECT count(*) FROM pg_prepared_statements").first?[0].integer
            }
            #expect(try sum(1, 10) == 11 && sum(1, 20) == 21 && kept() == 2, "prepared once, run twice")
            for statement in 2...(limit + 10) { #expect(try sum(statement, 1) == Int64(statement + 1)) }
            #expect(try kept() == Int64(limit), "the least recently used were deallocated")
            // Kept now: the count and the last 63 sums, 12 the oldest. Used again, 12 outlives 13.
            func isPrepared(_ statement: Int) throws -> Bool {
                let text = "SELECT $1::bigint + \(statement)"
                return try connection.query(
                    "SELECT count(*) FROM pg_prepared_statements WHERE statement = $1", [.text(text)]
                ).first?[0].integer == 1
            }
            #expect(try sum(12, 1) == 13 && sum(limit + 11, 1) == Int64(limit + 12))
            #expect(try isPrepared(12) && !isPrepared(13), "the least recently used went, not the first prepared")
            #expect(try sum(1, 5) == 6 && sum(limit + 10, 5) == Int64(limit + 15), "an evicted one is prepared again")
            #expect(try kept() == Int64(limit))
            // An error inside a transaction leaves the statements usable once it is rolled back.
            try connection.execute("BEGIN")
            #expect(throws: PostgresConnection.Failure.self) {
                try connection.query("SELECT 1 / $1::int", [.integer(0)])
            }
            try connection.execute("ROLLBACK")
            #expect(try connection.query("SELECT 1 / $1::int", [.integer(1)]).first?[0].integer == 1)
        }
    }

    @Test("a PostgreSQL connection reads every type the store returns from binary results, and refuses another by name")
    func binaryResults() throws {
        let store = PostgresGatewayStore(
            url: try GatewayBackend.postgres.newDatabase(), passwordFile: nil, connections: 1)
        try store.pool.withConnection { connection in
            let bytes: [UInt8] = [0, 0x5C, 0x78, 0xFF, 0, 1]  // NUL, a backslash and an "x" among them
            let row = try connection.query(
                "SELECT $1::bytea, ''::bytea, $2::text, $3::bigint, $4::integer, $5::smallint, true, false, "
                    + "NULL::bigint, 'name'::name, '{\"a\":1}'::json, pg_notify('pushseal_test', '')",
                [
                    .blob(bytes), .text("Grüße, \u{1F512}"), .integer(-9_007_199_254_740_993), .integer(-2_147_483_648),
                    .integer(-32_768),
                ]
            ).first
            #expect(
                row == [
                    .blob(bytes), .blob([]), .text("Grüße, \u{1F512}"), .integer(-9_007_199_254_740_993),
                    .integer(-2_147_483_648), .integer(-32_768), .integer(1), .integer(0), .null, .text("name"),
                    .text("{\"a\":1}"), .null,
                ])
            #expect(try connection.query("SELECT $1::bytea", [.blob([])]).first == [.blob([])], "empty, not NULL")
            #expect(try connection.query("SELECT $1::bytea", [.null]).first == [.null])
            let refused = #expect(throws: PostgresBinaryColumn.Unreadable.self) {
                try connection.query("SELECT 1, 2.5::numeric")
            }
            #expect(
                refused?.description == "result column 1 is of PostgreSQL type 1700, which the gateway does not read")
        }
    }

    @Test(
        "a push accepted by one PostgreSQL instance wakes another's workers of its deliveries' kinds; a push without deliveries, or a repeated idempotency key, wakes none"
    )
    func notifications() throws {
        let database = try GatewayBackend.postgres.newDatabase()
        let accepting = PostgresGatewayStore(url: database, passwordFile: nil, connections: 2)
        let listening = PostgresGatewayStore(url: database, passwordFile: nil, connections: 2)
        try accepting.migrate()
        let wakes = DispatchSemaphore(value: 0)
        let woken = Mutex<[Set<DeliveryKind>]>([])
        let listener = OutboxListener(pool: listening.pool) { kinds in
            woken.withLock { $0.append(kinds) }
            wakes.signal()
        }
        defer { listener.stop() }
        /// The kinds of the next wake, if one comes within `seconds`.
        func nextWake(within seconds: Double) -> Set<DeliveryKind>? {
            guard wakes.wait(timeout: .now() + seconds) == .success else { return nil }
            return woken.withLock { $0.removeFirst() }
        }
        // The listener's LISTEN is in place once a NOTIFY sent now reaches it.
        let ready = ContinuousClock.now.advanced(by: .seconds(10))
        var bare: Set<DeliveryKind>?
        repeat {
            try accepting.pool.withConnection { try $0.execute("NOTIFY \(PostgresGatewayStore.channel)") }
            bare = nextWake(within: 0.2)
        } while bare == nil && ContinuousClock.now < ready
        #expect(bare == Set(DeliveryKind.allCases), "a bare NOTIFY (an older gateway's) wakes every kind")
        while nextWake(within: 0.3) != nil {}

        #expect(nextWake(within: 0.5) == nil, "nothing wakes an idle listener")
        let device = Self.device("d", registeredAt: 100)
        let subscription = Self.subscription("s", endpoint: "https://push.example/s", registeredAt: 100)
        _ = try accepting.putDevice(device)
        _ = try accepting.putDevice(subscription)
        let delivery = NewDelivery(device: device, headers: [("apns-topic", Self.topic)], body: [1], expiration: nil)
        let message = NewDelivery(device: subscription, headers: [("ttl", "60")], body: [2], expiration: nil)
        #expect(
            try accepting.acceptPush(id: "p1", idempotencyKey: "k", requestHash: [1], at: 200, deliveries: [delivery])
                == .accepted)
        #expect(nextWake(within: 5) == [.apns], "the accept woke the other instance's APNs workers alone")
        #expect(
            try accepting.acceptPush(
                id: "p2", idempotencyKey: nil, requestHash: [], at: 250, deliveries: [message, delivery]) == .accepted)
        #expect(nextWake(within: 5) == [.apns, .webPush])
        #expect(
            try accepting.acceptPush(id: "p3", idempotencyKey: nil, requestHash: [], at: 260, deliveries: [])
                == .accepted)
        #expect(
            try accepting.acceptPush(id: "p4", idempotencyKey: "k", requestHash: [1], at: 300, deliveries: [delivery])
                == .repeated("p1"))
        #expect(nextWake(within: 1) == nil, "a push without deliveries, and a repeat, wake no one")
    }

    @Test("a notification's payload names its kinds; one naming no kind this gateway knows wakes every kind")
    func notificationPayloads() {
        #expect(OutboxListener.payload(kinds: [.webPush, .apns]) == "apns,webpush")
        #expect(OutboxListener.kinds(payload: "webpush") == [.webPush])
        #expect(OutboxListener.kinds(payload: "apns,webpush") == [.apns, .webPush])
        #expect(OutboxListener.kinds(payload: "apns,pigeon") == [.apns])
        #expect(OutboxListener.kinds(payload: "pigeon") == Set(DeliveryKind.allCases), "a newer gateway's kind")
        #expect(OutboxListener.kinds(payload: "") == Set(DeliveryKind.allCases))
    }

    @Test("one schema number names both stores: each has as many migrations as GatewaySchema.version says")
    func schemaNumbers() {
        #expect(SQLiteGatewayStore.migrations.count == GatewaySchema.version)
        #expect(PostgresGatewayStore.migrations.count == GatewaySchema.version)
    }

    @Test("instances that start together migrate one PostgreSQL database once, under the advisory lock")
    func concurrentMigrations() throws {
        let database = try GatewayBackend.postgres.newDatabase()
        let stores = (0..<4).map { _ in PostgresGatewayStore(url: database, passwordFile: nil, connections: 2) }
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: stores.count) { index in
            do {
                try stores[index].migrate()
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let versions = try stores[0].pool.withConnection {
            try $0.query("SELECT version FROM pushseal_schema ORDER BY version")
        }
        #expect(
            versions.map { $0[0].integer } == (1...PostgresGatewayStore.migrations.count).map { Int64($0) },
            "each migration applied once")
    }
}
