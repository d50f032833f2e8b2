import Foundation
import PushSealGatewayModel
import PushSealGatewayStorage
import PushSealTestSupport
import Testing

/// Schema 10 gives every row an app: a gateway that served one moves to the `default` app whole,
/// and a device's id, an idempotency key and a webhook endpoint's name become unique within an app.
@Suite("pushseal-gateway schema 10: apps")
struct AppSchemaMigrationTests {
    static let token = String(repeating: "cd", count: 32)

    /// A row of every table, as schema 9 holds them, in `dialect`'s parameters.
    static func schema9Rows(_ dialect: SQLDialect) -> [(String, [DatabaseValue])] {
        let p = dialect.placeholder
        return [
            (
                "INSERT INTO access_tokens (id, secret_hash, scopes, created_at, label) VALUES ('t1', \(p(1)), 'admin', 10, 'ci')",
                [.blob([1, 2, 3])]
            ),
            (
                "INSERT INTO devices (id, user_id, kind, token, topic, environment, public_key, registered_at) "
                    + "VALUES ('d1', 'u1', 'apns', '\(token)', '\(GatewayStoreTests.topic)', 'sandbox', '{}', 100)", []
            ),
            (
                "INSERT INTO devices (id, user_id, kind, endpoint, p256dh, auth, registered_at, unregistered_at) "
                    + "VALUES ('w1', 'u1', 'webpush', 'https://push.example/e', 'key', 'auth', 100, 150)", []
            ),
            (
                "INSERT INTO pushes (id, idempotency_key, accepted_at, request_hash) VALUES ('p1', 'k1', 200, \(p(1)))",
                [.blob([7, 7])]
            ),
            (
                "INSERT INTO deliveries (push_id, device_id, kind, address, environment, headers, body, status, "
                    + "next_attempt_at, accepted_at) VALUES ('p1', 'd1', 'apns', '\(token)', 'sandbox', '[]', \(p(1)), "
                    + "'queued', 200, 200)", [.blob([9])]
            ),
            (
                "INSERT INTO webpush_inboxes (id_hash, id_prefix, device_id, created_at) VALUES ('h1', 'abcdefgh', 'd1', 300)",
                []
            ),
            (
                "INSERT INTO webhook_events (event_id, endpoint, type, body, created_at, status, next_attempt_at) "
                    + "VALUES ('msg_1', 'hooks', 'device.unregistered', '{}', 400, 'queued', 400)", []
            ),
            ("INSERT INTO webhook_endpoints (name, failures, failing_since) VALUES ('ops', 2, 350)", []),
            ("INSERT INTO instances (id, version, started_at, heartbeat_at) VALUES ('i1', '1.3.10', 1, 2)", []),
        ]
    }

    /// The tables schema 10 gives an app.
    static let tablesWithApps = [
        "access_tokens", "devices", "pushes", "deliveries", "webpush_inboxes", "webhook_events", "webhook_endpoints",
    ]

    /// A store of `backend` whose database was made at schema 9 and filled with ``schema9Rows(_:)``,
    /// not yet migrated further, and a way to run SQL on that database.
    static func storeAtSchema9(_ backend: GatewayBackend, in directory: TemporaryDirectory) throws -> (
        any GatewayStore, run: (String, [DatabaseValue]) throws -> [[DatabaseValue]]
    ) {
        let database = try backend.newDatabase()
        switch backend {
        case .sqlite:
            let old = try SQLiteDatabase(path: directory.file("gateway.db"))
            for migration in SQLiteMigrations.all.prefix(9) { try old.apply(migration) }
            for (statement, values) in schema9Rows(.sqlite) { try old.query(statement, values) }
            #expect(try old.query("PRAGMA user_version").first?.first?.integer == 9)
            return (try backend.store(database, in: directory), { try old.query($0, $1) })
        case .postgres:
            let store = PostgresGatewayStore(url: database, passwordFile: nil, connections: 2)
            #expect(try store.migrate(through: 9) == SchemaChange(from: 0, to: 9))
            try store.pool.withConnection { connection in
                for (statement, values) in schema9Rows(.postgres) { try connection.query(statement, values) }
            }
            return (store, { statement, values in try store.pool.withConnection { try $0.query(statement, values) } })
        }
    }

    @Test(
        "a populated schema 9 migrates to 10 (and on to the current one) whole: every row in the default app, each read as before",
        arguments: GatewayBackend.allCases)
    func populatedSchema9(_ backend: GatewayBackend) throws {
        let directory = TemporaryDirectory()
        let (store, run) = try Self.storeAtSchema9(backend, in: directory)
        let clock = { Int64(Date().timeIntervalSince1970 * 1_000) }
        let before = clock()
        #expect(try store.migrate() == SchemaChange(from: 9, to: GatewaySchema.version))
        let listed = try store.listedApps()
        #expect(listed.map(\.id) == [.default] && listed.first?.retentionHours == nil, "the gateway's retention")
        #expect((before...clock() + 1).contains(listed.first?.servedAt ?? 0), "served until now")
        for table in Self.tablesWithApps {
            let rows = try run("SELECT count(*), count(*) FILTER (WHERE app = 'default') FROM \(table)", [])
            #expect(rows.first?[0].integer == rows.first?[1].integer && rows.first?[0].integer ?? 0 > 0, "\(table)")
        }
        #expect(try store.accessToken(id: "t1")?.label == "ci")
        #expect(
            try store.device(id: "d1", in: .default)?.channel
                == .apns(token: Self.token, topic: GatewayStoreTests.topic, environment: .sandbox, publicKeyJWK: "{}"))
        #expect(try store.device(id: "w1", in: .default)?.unregisteredAt == 150)
        #expect(try store.earlierPush(idempotencyKey: "k1", in: .default, requestHash: [7, 7]) == .repeated("p1"))
        #expect(try store.inbox(idHash: "h1")?.1?.id == "d1")
        let claimed = try store.claimDeliveries(
            .apns, from: [.default], limit: 5, at: 500, leaseMilliseconds: 1_000, owner: "w")
        #expect(claimed.map(\.body) == [[9]] && claimed.first?.pushID == "p1")
        let events = try store.claimWebhookEvents(
            endpoint: "hooks", in: .default, limit: 5, at: 500, expireBefore: 0, leaseMilliseconds: 1_000, owner: "w")
        #expect(events.events.map(\.eventID) == ["msg_1"])
        #expect(try store.instances().map(\.id) == ["i1"])
        // The keys kept their meaning within the default app: a device registered again is an update.
        #expect(try !store.putDevice(GatewayStoreTests.device("d1", registeredAt: 600)))
        #expect(try store.statistics().activeDevices == 1)
    }

    @Test(
        "a device's id, an idempotency key and a webhook endpoint's name are unique within an app, and only there",
        arguments: GatewayBackend.allCases)
    func keysWithinAnApp(_ backend: GatewayBackend) throws {
        let directory = TemporaryDirectory()
        let (store, run) = try Self.storeAtSchema9(backend, in: directory)
        try store.migrate()
        let device =
            "INSERT INTO devices (id, user_id, kind, token, topic, environment, public_key, registered_at, app) "
            + "VALUES ('d1', 'u9', 'apns', 'ee', 't', 'sandbox', '{}', 100, "
        let push = "INSERT INTO pushes (id, idempotency_key, accepted_at, app) VALUES ("
        let endpoint = "INSERT INTO webhook_endpoints (name, app) VALUES ('ops', "
        // The same keys in another app are rows of their own…
        _ = try run(device + "'shop')", [])
        _ = try run(push + "'p2', 'k1', 200, 'shop')", [])
        _ = try run(endpoint + "'shop')", [])
        // …and a second time in the same app, refused.
        #expect(throws: (any Error).self) { try run(device + "'shop')", []) }
        #expect(throws: (any Error).self) { try run(device + "'default')", []) }
        #expect(throws: (any Error).self) { try run(push + "'p3', 'k1', 200, 'default')", []) }
        #expect(throws: (any Error).self) { try run(push + "'p4', 'k1', 200, 'shop')", []) }
        #expect(throws: (any Error).self) { try run(endpoint + "'default')", []) }
        #expect(try run("SELECT count(*) FROM devices WHERE id = 'd1'", []).first?.first?.integer == 2)
    }
}
