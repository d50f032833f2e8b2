import Dispatch
import Foundation
import PushSealGatewayModel
import PushSealGatewayStorage
import PushSealTestSupport
import Synchronization
import Testing

/// What only PostgreSQL's store does: its statements' plans, its prepared statements and binary
/// results, its notifications between instances and its migrations under a lock. The rules both
/// stores share are `GatewayStoreTests`'.
@Suite("pushseal-gateway store on PostgreSQL")
struct PostgresStoreTests {
    /// A new, migrated PostgreSQL store of one connection, for the tests that read its plans.
    static func postgresStore() throws -> PostgresGatewayStore {
        let store = PostgresGatewayStore(
            url: try GatewayBackend.postgres.newDatabase(), passwordFile: nil, connections: 1)
        try store.migrate()
        return store
    }

    @Test("a PostgreSQL burst of sends is one update through the primary key, as the plan it is prepared with")
    func sentBurstUsesPrimaryKey() throws {
        let store = try Self.postgresStore()
        #expect(try GatewayStoreTests.acceptPush(of: 2_000, in: store) == .accepted)
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
        let delivery = try GatewayStoreTests.registeredDelivery(in: store)
        let parameters: [DatabaseValue] =
            [.text("p"), .null, .integer(200), .blob([]), .text(AppID.default.name)]
            + Array(repeating: delivery, count: 3).flatMap(PostgresPushInsert.parameters(of:))
        // As PostgreSQL ran it: the key's check was a trigger, called once per delivery stored.
        let plan = try store.pool.withConnection { connection in
            try connection.query(
                "EXPLAIN (ANALYZE, FORMAT JSON) " + PostgresPushInsert.push(deliveries: 3), parameters
            ).first?.first?.text ?? ""
        }
        #expect(plan.contains("\"Triggers\"") && !plan.contains("Trigger Name"), "\(plan)")
        #expect(
            try store.push(id: "p", in: .default, after: 0, limit: 10)?.deliveries.count == 3,
            "the push and its deliveries stored")
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
            try store.claimDeliveries(.apns, from: [.default], limit: 2, at: 300, leaseMilliseconds: 1_000, owner: "a")
                .map(\.body)
                == [body, body])
    }

    @Test("a PostgreSQL outbox queued at schema 8 is delivered at schema 9: a body in TOAST chunks is claimed whole")
    func bodiesQueuedBeforeSchema9() throws {
        let store = PostgresGatewayStore(
            url: try GatewayBackend.postgres.newDatabase(), passwordFile: nil, connections: 1)
        #expect(try store.migrate(through: 8) == SchemaChange(from: 0, to: 8))
        // Written as schema 8 reads them: this version's statements name columns it lacks.
        let body = (0..<2_400).map { _ in UInt8.random(in: .min ... .max) }
        let token = String(repeating: "ab", count: 32)
        try store.pool.withConnection { connection in
            try connection.execute(
                "INSERT INTO devices (id, user_id, kind, token, topic, environment, public_key, registered_at) "
                    + "VALUES ('d', 'u', 'apns', '\(token)', '\(GatewayStoreTests.topic)', 'production', '{}', 100); "
                    + "INSERT INTO pushes (id, accepted_at) VALUES ('p', 200)")
            for _ in 0..<2 {
                try connection.query(
                    "INSERT INTO deliveries (push_id, device_id, kind, address, environment, headers, body, status, "
                        + "next_attempt_at, accepted_at) VALUES ('p', 'd', 'apns', $1, 'production', '[]', $2, "
                        + "'queued', 200, 200)", [.text(token), .blob(body)])
            }
        }
        #expect(try Self.toastChunks(in: store) == 4, "schema 8 stored each body as two chunks")
        #expect(try store.migrate() == SchemaChange(from: 8, to: GatewaySchema.version))
        let claimed = try store.claimDeliveries(
            .apns, from: [.default], limit: 2, at: 300, leaseMilliseconds: 1_000, owner: "a")
        #expect(claimed.map(\.body) == [body, body])
        try store.finish(
            claimed.map { EndedAttempt(delivery: $0, outcome: .sent(apnsID: nil), attempts: 1, time: 400) },
            routing: .none)
        #expect(try Self.toastChunks(in: store) == 0, "the chunks went with the bodies of the deliveries that ended")
    }

    /// Stores push `p` of two deliveries to device `d` whose body is as a sealed payload is: past
    /// PostgreSQL's default TOAST target of some 2 KB, and incompressible; the body.
    static func acceptSealedSizedPush(in store: PostgresGatewayStore) throws -> [UInt8] {
        let device = try GatewayStoreTests.registeredDelivery(in: store).device
        let body = (0..<2_400).map { _ in UInt8.random(in: .min ... .max) }
        let delivery = NewDelivery(
            device: device, headers: [("apns-topic", GatewayStoreTests.topic)], body: body, expiration: nil)
        #expect(
            try store.acceptPush(
                id: "p", in: .default, idempotencyKey: nil, requestHash: [], at: 200, deliveries: [delivery, delivery])
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
        #expect(try GatewayStoreTests.acceptPush(of: 300, in: store) == .accepted)
        let inFlight = try store.claimDeliveries(
            .apns, from: [.default], limit: 290, at: 300, leaseMilliseconds: 60_000, owner: "a")
        #expect(inFlight.count == 290)
        // The next claim, as the plan PostgreSQL runs it through deliveries_due, on a table too
        // small for the planner to prefer that index by itself.
        let plan = try store.pool.withConnection { connection in
            try connection.execute("ANALYZE deliveries; SET enable_seqscan = off; SET enable_bitmapscan = off")
            defer { _ = try? connection.execute("RESET enable_seqscan; RESET enable_bitmapscan") }
            return try connection.query(
                "EXPLAIN (ANALYZE, FORMAT JSON) " + PostgresGatewayStore.claim,
                [
                    .integer(400), .integer(5), .text("b"), .integer(60_400), .text(DeliveryKind.apns.rawValue),
                    .text(AppID.default.name),
                ]
            ).first?.first?.text ?? ""
        }
        #expect(plan.contains("deliveries_due"), "\(plan)")
        let removed = plan.matches(of: /"Rows Removed by Filter": (\d+)/).compactMap { Int($0.output.1) }
        #expect(removed.reduce(0, +) == 0, "the claim read past leased deliveries: \(removed)")
        let rest = try store.claimDeliveries(
            .apns, from: [.default], limit: 10, at: 500, leaseMilliseconds: 60_000, owner: "c")
        #expect(rest.count == 5, "the explained claim took 5 of the 10 free; 5 are left")
        #expect(Set(rest.map(\.id)).isDisjoint(with: inFlight.map(\.id)))
        let lapsed = try store.claimDeliveries(
            .apns, from: [.default], limit: 300, at: 60_300, leaseMilliseconds: 1_000, owner: "d")
        #expect(lapsed.map(\.id) == inFlight.map(\.id), "a's leases lapsed at 60,300: due again, in order")
    }

    @Test("a PostgreSQL lease renewal waits for no row: it skips one a recording holds, and renews the rest")
    func renewalSkipsHeldRows() throws {
        let store = PostgresGatewayStore(
            url: try GatewayBackend.postgres.newDatabase(), passwordFile: nil, connections: 2)
        try store.migrate()
        #expect(try GatewayStoreTests.acceptPush(of: 3, in: store) == .accepted)
        let leased = try store.claimDeliveries(
            .apns, from: [.default], limit: 3, at: 300, leaseMilliseconds: 1_000, owner: "w")
        #expect(leased.count == 3)
        let held = leased[1].id
        // Another transaction (a recording of outcomes) holds one of the worker's rows for 3 s,
        // longer than lock_timeout's 2 s.
        let holding = DispatchSemaphore(value: 0)
        let holder = Thread {
            try? store.pool.transaction { connection in
                try connection.query("SELECT id FROM deliveries WHERE id = $1 FOR UPDATE", [.integer(held)])
                holding.signal()
                Thread.sleep(forTimeInterval: 3)
            }
        }
        holder.start()
        #expect(holding.wait(timeout: .now() + 10) == .success)
        let began = ContinuousClock.now
        #expect(throws: Never.self) { try store.renewLeases(owner: "w", until: 9_000) }
        #expect(ContinuousClock.now - began < .seconds(1), "the renewal waited for the held row")
        let leases = try store.read("SELECT id, lease_until FROM deliveries ORDER BY id", [])
        #expect(
            leases.map { $0[1].integer } == leased.map { $0.id == held ? 1_300 : 9_000 },
            "the free rows renewed, the held one left for the next renewal: \(leases)")
    }

    @Test("a PostgreSQL recording takes its deliveries in id order, whatever order its outcomes came in")
    func recordingLocksInIDOrder() throws {
        let store = PostgresGatewayStore(
            url: try GatewayBackend.postgres.newDatabase(), passwordFile: nil, connections: 3)
        try store.migrate()
        // An outbox large enough that PostgreSQL finds rows through the primary key, as in
        // production, where a statement takes them in the order its ids are given.
        #expect(try GatewayStoreTests.acceptPush(of: 2_000, in: store) == .accepted)
        try store.pool.withConnection { try $0.execute("ANALYZE deliveries") }
        let leased = try store.claimDeliveries(
            .apns, from: [.default], limit: 3, at: 300, leaseMilliseconds: 60_000, owner: "w")
        #expect(leased.count == 3)
        // The middle row is held elsewhere; the recording of [last, middle, first] must then hold
        // the first already (it takes rows in id order), and not yet the last.
        let release = DispatchSemaphore(value: 0)
        let holding = DispatchSemaphore(value: 0)
        let holder = Thread {
            try? store.pool.transaction { connection in
                try connection.query("SELECT id FROM deliveries WHERE id = $1 FOR UPDATE", [.integer(leased[1].id)])
                holding.signal()
                _ = release.wait(timeout: .now() + 10)
            }
        }
        holder.start()
        #expect(holding.wait(timeout: .now() + 10) == .success)
        let recorded = DispatchSemaphore(value: 0)
        let recorder = Thread {
            try? store.finish(
                leased.reversed().map {
                    EndedAttempt(delivery: $0, outcome: .sent(apnsID: "a"), attempts: 1, time: 400)
                }, routing: .none)
            recorded.signal()
        }
        recorder.start()
        Thread.sleep(forTimeInterval: 0.5)
        let free = { (id: Int64) -> Bool in
            (try? store.pool.transaction { connection in
                try connection.query("SELECT id FROM deliveries WHERE id = $1 FOR UPDATE NOWAIT", [.integer(id)])
            }) != nil
        }
        #expect(!free(leased[0].id), "the recording holds the first row while it waits for the middle one")
        #expect(free(leased[2].id), "the recording took the last row before the middle one")
        release.signal()
        #expect(recorded.wait(timeout: .now() + 10) == .success)
        let statuses = try store.read(
            "SELECT status FROM deliveries WHERE id = ANY($1::bigint[]) ORDER BY id",
            [.text("{\(leased.map { String($0.id) }.joined(separator: ","))}")]
        ).map { $0[0].text }
        #expect(statuses == ["sent", "sent", "sent"], "\(statuses)")
    }

    @Test(
        "a PostgreSQL device's deletion takes its queued deliveries before the device, and its registration the device before its relay endpoints"
    )
    func deviceWritesKeepTheLockOrder() throws {
        let store = PostgresGatewayStore(
            url: try GatewayBackend.postgres.newDatabase(), passwordFile: nil, connections: 3)
        try store.migrate()
        #expect(try GatewayStoreTests.acceptPush(of: 2, in: store) == .accepted)
        let delivery = try #require(try store.read("SELECT min(id) FROM deliveries", []).first?.first?.integer)
        try store.addInbox(
            WebPushInbox(
                idHash: "h", idPrefix: "p", app: .default, deviceID: "d", vapidKey: nil, createdAt: 100, removedAt: nil)
        )
        /// Holds `row` (a statement that locks one row, parameter $1) in a transaction of its own,
        /// as a recording of outcomes would, runs `write` beside it, and says whether `other`
        /// (another such statement) could be taken meanwhile: whether `write` waits without it.
        func whileHeld(
            _ row: String, _ value: DatabaseValue, write: @escaping @Sendable () throws -> Void, other: String
        )
            -> Bool
        {
            let release = DispatchSemaphore(value: 0)
            let holding = DispatchSemaphore(value: 0)
            let done = DispatchSemaphore(value: 0)
            Thread {
                try? store.pool.transaction { connection in
                    try connection.query(row, [value])
                    holding.signal()
                    _ = release.wait(timeout: .now() + 10)
                }
            }.start()
            _ = holding.wait(timeout: .now() + 10)
            Thread {
                try? write()
                done.signal()
            }.start()
            Thread.sleep(forTimeInterval: 0.5)
            let free = (try? store.pool.transaction { try $0.query(other + " NOWAIT", [.text("d")]) }) != nil
            release.signal()
            _ = done.wait(timeout: .now() + 10)
            return free
        }
        // A recording holds a delivery of d and will ask for d's row: the deletion must not hold
        // d's row while it waits for that delivery.
        let deletionLeftDevice = whileHeld(
            "SELECT id FROM deliveries WHERE id = $1 FOR UPDATE", .integer(delivery),
            write: { _ = try store.deleteDevice(id: "d", in: .default, at: 500, routing: .none) },
            other: "SELECT 1 FROM devices WHERE id = $1 FOR UPDATE")
        #expect(deletionLeftDevice, "the deletion held the device while it waited for its delivery")
        #expect(try store.device(id: "d", in: .default) == nil, "deleted once the delivery was free")
        // A recording holds d's row (marking it gone) and will ask for its relay endpoints: the
        // registration must not hold those while it waits for the device.
        _ = try store.putDevice(GatewayStoreTests.device("d", registeredAt: 600))
        try store.addInbox(
            WebPushInbox(
                idHash: "h2", idPrefix: "p", app: .default, deviceID: "d", vapidKey: nil, createdAt: 600, removedAt: nil
            ))
        let handedOn = Device(
            app: .default, id: "d", user: "someone else",
            channel: .apns(
                token: String(repeating: "cd", count: 32), topic: GatewayStoreTests.topic, environment: .production,
                publicKeyJWK: "{}"),
            registeredAt: 700, unregisteredAt: nil)
        let registrationLeftEndpoints = whileHeld(
            "SELECT 1 FROM devices WHERE id = $1 FOR UPDATE", .text("d"),
            write: { _ = try store.putDevice(handedOn) },
            other: "SELECT 1 FROM webpush_inboxes WHERE device_id = $1 FOR UPDATE")
        #expect(registrationLeftEndpoints, "the registration held the relay endpoints while it waited for the device")
        #expect(try store.device(id: "d", in: .default)?.user == "someone else")
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
        let device = GatewayStoreTests.device("d", registeredAt: 100)
        let subscription = GatewayStoreTests.subscription("s", endpoint: "https://push.example/s", registeredAt: 100)
        _ = try accepting.putDevice(device)
        _ = try accepting.putDevice(subscription)
        let delivery = NewDelivery(
            device: device, headers: [("apns-topic", GatewayStoreTests.topic)], body: [1], expiration: nil)
        let message = NewDelivery(device: subscription, headers: [("ttl", "60")], body: [2], expiration: nil)
        #expect(
            try accepting.acceptPush(
                id: "p1", in: .default, idempotencyKey: "k", requestHash: [1], at: 200, deliveries: [delivery])
                == .accepted)
        #expect(nextWake(within: 5) == [.apns], "the accept woke the other instance's APNs workers alone")
        #expect(
            try accepting.acceptPush(
                id: "p2", in: .default, idempotencyKey: nil, requestHash: [], at: 250, deliveries: [message, delivery])
                == .accepted)
        #expect(nextWake(within: 5) == [.apns, .webPush])
        #expect(
            try accepting.acceptPush(
                id: "p3", in: .default, idempotencyKey: nil, requestHash: [], at: 260, deliveries: [])
                == .accepted)
        #expect(
            try accepting.acceptPush(
                id: "p4", in: .default, idempotencyKey: "k", requestHash: [1], at: 300, deliveries: [delivery])
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
            versions.map { $0[0].integer } == (1...GatewaySchema.version).map { Int64($0) },
            "each migration applied once")
    }
}
