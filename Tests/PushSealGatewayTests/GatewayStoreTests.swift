import PushSealGatewayModel
import PushSealGatewayStorage
import PushSealTestSupport
import Testing

/// The store contract, each rule proven on SQLite and on PostgreSQL alike, through the storage
/// module alone (no HTTP, no workers); what only one database does is `SQLiteStoreTests`' and
/// `PostgresStoreTests`'.
@Suite("pushseal-gateway store")
struct GatewayStoreTests {
    static let topic = "com.example.shop"

    static func device(_ id: String, registeredAt: Int64) -> Device {
        Device(
            app: .default, id: id, user: "u",
            channel: .apns(
                token: String(repeating: "ab", count: 32), topic: topic, environment: .production, publicKeyJWK: "{}"),
            registeredAt: registeredAt, unregisteredAt: nil)
    }

    static func subscription(_ id: String, endpoint: String, registeredAt: Int64) -> Device {
        Device(
            app: .default, id: id, user: "u", channel: .webPush(endpoint: endpoint, p256dh: "BP", auth: "au"),
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
            id: "p", in: .default, idempotencyKey: nil, requestHash: [], at: 200,
            deliveries: Array(repeating: delivery, count: count)
        )
    }

    @Test(
        "a delivery still queued for a token another push found gone is claimed as gone, and only then",
        arguments: GatewayBackend.allCases)
    func goneTokens(_ backend: GatewayBackend) throws {
        let directory = TemporaryDirectory()
        let store = try Self.store(backend, in: directory)
        let delivery = try Self.registeredDelivery(in: store)
        #expect(
            try store.acceptPush(
                id: "p1", in: .default, idempotencyKey: nil, requestHash: [1], at: 200, deliveries: [delivery])
                == .accepted)
        #expect(
            try store.acceptPush(
                id: "p2", in: .default, idempotencyKey: nil, requestHash: [1], at: 200, deliveries: [delivery])
                == .accepted)
        let first = try store.claimDeliveries(
            .apns, from: [.default], limit: 1, at: 300, leaseMilliseconds: 1_000, owner: "w")
        #expect(first.count == 1 && first[0].addressIsGone == false)
        try store.finish(
            first[0], .unregistered(reason: DeliveryReason(text: "Unregistered"), timestamp: 250), attempts: 1, at: 300,
            routing: .none)
        let second = try store.claimDeliveries(
            .apns, from: [.default], limit: 1, at: 300, leaseMilliseconds: 1_000, owner: "w")
        #expect(second.count == 1 && second[0].addressIsGone, "the device was marked: the second is not sent")

        _ = try store.putDevice(Self.device("d", registeredAt: 400))
        #expect(
            try store.acceptPush(
                id: "p3", in: .default, idempotencyKey: nil, requestHash: [1], at: 500, deliveries: [delivery])
                == .accepted)
        let third = try store.claimDeliveries(
            .apns, from: [.default], limit: 5, at: 600, leaseMilliseconds: 1_000, owner: "w")
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
                id: "p1", in: .default, idempotencyKey: "k", requestHash: [1], at: 200,
                deliveries: [delivery, delivery]) == .accepted
        )
        #expect(
            try store.acceptPush(
                id: "p2", in: .default, idempotencyKey: "k", requestHash: [1], at: 201, deliveries: [delivery])
                == .repeated("p1"))
        #expect(try store.push(id: "p2", in: .default) == nil)

        let first = try store.claimDeliveries(
            .apns, from: [.default], limit: 1, at: 300, leaseMilliseconds: 1_000, owner: "a")
        let second = try store.claimDeliveries(
            .apns, from: [.default], limit: 5, at: 300, leaseMilliseconds: 1_000, owner: "b")
        #expect(first.count == 1 && second.count == 1 && first[0].id != second[0].id)
        #expect(first[0].body == [0, 1, 0xFF] && first[0].headers.map(\.value) == [Self.topic])
        #expect(
            try store.claimDeliveries(
                .apns, from: [.default], limit: 5, at: 1_299, leaseMilliseconds: 1_000, owner: "c"
            ).isEmpty)
        try store.renewLeases(owner: "a", until: 5_000)
        let reclaimed = try store.claimDeliveries(
            .apns, from: [.default], limit: 5, at: 1_300, leaseMilliseconds: 1_000, owner: "c")
        #expect(reclaimed.map(\.id) == [second[0].id], "b's lease ran out; a renewed its own")
        try store.finish(first[0], .sent(apnsID: "A"), attempts: 1, at: 1_400, routing: .none)
        try store.finish(
            reclaimed[0], .retry(at: 9_000, reason: DeliveryReason(text: "TooManyRequests")), attempts: 2, at: 1_400,
            routing: .none)
        let states = try #require(try store.push(id: "p1", in: .default)).deliveries
        #expect(states.map(\.status) == [.sent, .queued] && states.map(\.attempts) == [1, 2])
        #expect(
            try store.retrying(limit: 5, in: nil) == [
                RetryingCount(reason: "TooManyRequests", count: 1, nextAttemptAt: 9_000)
            ],
            "the queued delivery waits after its last attempt's reason; the sent one is not counted")
        #expect(try store.retrying(limit: 0, in: nil).isEmpty)
        #expect(
            try store.claimDeliveries(
                .apns, from: [.default], limit: 5, at: 8_999, leaseMilliseconds: 1_000, owner: "c"
            ).isEmpty)
        #expect(
            try store.claimDeliveries(
                .apns, from: [.default], limit: 5, at: 9_000, leaseMilliseconds: 1_000, owner: "c"
            ).count == 1)
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
        #expect(try store.device(id: "browser", in: .default) == browser, "read back whole")
        #expect(try store.devices(user: "u", in: .default).map(\.id) == ["browser", "phone"])
        let deliveries = [
            NewDelivery(device: phone, headers: [("apns-topic", Self.topic)], body: [1], expiration: nil),
            NewDelivery(device: browser, headers: [("urgency", "high")], body: [2], expiration: 900),
        ]
        #expect(
            try store.acceptPush(
                id: "p1", in: .default, idempotencyKey: nil, requestHash: [1], at: 200, deliveries: deliveries)
                == .accepted)
        #expect(
            try store.acceptPush(
                id: "p2", in: .default, idempotencyKey: nil, requestHash: [1], at: 200, deliveries: deliveries)
                == .accepted)

        let web = try store.claimDeliveries(
            .webPush, from: [.default], limit: 1, at: 300, leaseMilliseconds: 1_000, owner: "w")
        #expect(web.map(\.kind) == [.webPush] && web[0].address == "https://push.example/s/1")
        #expect(web[0].environment == nil && web[0].expiration == 900 && web[0].body == [2])
        #expect(web[0].headers.map(\.name) == ["urgency"])
        let apns = try store.claimDeliveries(
            .apns, from: [.default], limit: 5, at: 300, leaseMilliseconds: 1_000, owner: "a")
        #expect(apns.map(\.kind) == [.apns, .apns] && apns.allSatisfy { $0.environment == .production })

        try store.finish(
            web[0], .unregistered(reason: DeliveryReason(text: "HTTP 410"), timestamp: nil), attempts: 1, at: 300,
            routing: .none)
        #expect(try store.device(id: "browser", in: .default)?.unregisteredAt == 300, "the endpoint is gone")
        #expect(try store.device(id: "phone", in: .default)?.unregisteredAt == nil)
        let second = try store.claimDeliveries(
            .webPush, from: [.default], limit: 5, at: 300, leaseMilliseconds: 1_000, owner: "w")
        #expect(second.count == 1 && second[0].addressIsGone, "p2's delivery is not sent")

        // The browser subscribes again, elsewhere: an answer about the old endpoint leaves it alone.
        _ = try store.putDevice(Self.subscription("browser", endpoint: "https://push.example/s/2", registeredAt: 400))
        try store.finish(
            second[0], .unregistered(reason: DeliveryReason(text: "HTTP 404"), timestamp: nil), attempts: 1, at: 500,
            routing: .none)
        #expect(try store.device(id: "browser", in: .default)?.unregisteredAt == nil)
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
            try store.acceptPush(
                id: "big", in: .default, idempotencyKey: "k", requestHash: [7], at: 500, deliveries: deliveries)
                == .accepted)
        let stored = try #require(try store.push(id: "big", in: .default, after: 0, limit: 5_000))
        #expect(stored.acceptedAt == 500 && stored.deliveries.count == count && stored.counts == [.queued: count])
        #expect(
            try store.acceptPush(
                id: "again", in: .default, idempotencyKey: "k", requestHash: [7], at: 501, deliveries: deliveries)
                == .repeated("big"))
        #expect(
            try store.acceptPush(
                id: "other", in: .default, idempotencyKey: "k", requestHash: [8], at: 501, deliveries: [])
                == .conflict("big"))
        var claimed: [OutboxDelivery] = []
        for kind in [DeliveryKind.apns, .webPush] {
            claimed += try store.claimDeliveries(
                kind, from: [.default], limit: 5_000, at: 600, leaseMilliseconds: 1_000, owner: "w")
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
            try store.acceptPush(
                id: "empty", in: .default, idempotencyKey: nil, requestHash: [], at: 700, deliveries: [])
                == .accepted)
        #expect(try store.push(id: "empty", in: .default)?.deliveries == [])
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
                id: "p", in: .default, idempotencyKey: nil, requestHash: [], at: 200,
                deliveries: Array(repeating: delivery, count: 6)
            )
                == .accepted)
        let claimed = try store.claimDeliveries(
            .apns, from: [.default], limit: 6, at: 300, leaseMilliseconds: 1_000, owner: "w")
        #expect(claimed.count == 6)
        let outcomes: [DeliveryOutcome] = [
            .sent(apnsID: "A-1"), .retry(at: 5_000, reason: DeliveryReason(text: "TooManyRequests")),
            .sent(apnsID: nil),
            .failed(reason: DeliveryReason(text: "BadTopic")), .sent(apnsID: "A-3"),
            .unregistered(reason: DeliveryReason(text: "Unregistered"), timestamp: 250),
        ]
        try store.finish(
            zip(claimed, outcomes).enumerated().map { index, pair in
                EndedAttempt(delivery: pair.0, outcome: pair.1, attempts: index + 1, time: 400 + Int64(index))
            }, routing: .none)
        let states = try #require(try store.push(id: "p", in: .default)).deliveries
        #expect(states.map(\.status) == [.sent, .queued, .sent, .failed, .sent, .unregistered])
        #expect(states.map(\.attempts) == [1, 2, 3, 4, 5, 6])
        #expect(states.map(\.apnsID) == ["A-1", nil, nil, nil, "A-3", nil])
        #expect(states.map(\.reason) == [nil, "TooManyRequests", nil, "BadTopic", nil, "Unregistered"])
        #expect(try store.device(id: "d", in: .default)?.unregisteredAt == 405, "the gone token marked its device")
        // Ended deliveries keep no body and no lease: only the retried one is claimed again, when due.
        #expect(
            try store.claimDeliveries(
                .apns, from: [.default], limit: 6, at: 4_999, leaseMilliseconds: 1_000, owner: "v"
            ).isEmpty)
        let retried = try store.claimDeliveries(
            .apns, from: [.default], limit: 6, at: 5_000, leaseMilliseconds: 1_000, owner: "v")
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
                "BEGIN; \(SQLiteMigrations.all[0].sql); \(rows) PRAGMA user_version = 1; COMMIT")
        case .postgres:
            let old = PostgresGatewayStore(url: database, passwordFile: nil, connections: 2)
            try old.pool.withConnection { connection in
                try connection.execute(
                    "BEGIN; \(PostgresMigrations.all[0].sql); \(rows) "
                        + "CREATE TABLE pushseal_schema (version INTEGER NOT NULL); "
                        + "INSERT INTO pushseal_schema VALUES (1); COMMIT")
            }
        }
        let store = try backend.store(database, in: directory)
        try store.migrate()
        let device = try #require(try store.device(id: "d", in: .default))
        #expect(device.channel == .apns(token: token, topic: Self.topic, environment: .sandbox, publicKeyJWK: "{}"))
        let claimed = try store.claimDeliveries(
            .apns, from: [.default], limit: 5, at: 300, leaseMilliseconds: 1_000, owner: "w")
        #expect(claimed.count == 1 && claimed[0].address == token && claimed[0].environment == .sandbox)
        #expect(claimed.first?.body == [1])
        #expect(
            try store.claimDeliveries(
                .webPush, from: [.default], limit: 5, at: 300, leaseMilliseconds: 1_000, owner: "w"
            ).isEmpty)
    }

    @Test(
        "retention keeps a push while any record of its deliveries remains, ended or not, and deletes it once none does",
        arguments: GatewayBackend.allCases)
    func retentionKeepsPushesWithRecords(_ backend: GatewayBackend) throws {
        let directory = TemporaryDirectory()
        let store = try Self.store(backend, in: directory)
        #expect(try Self.acceptPush(of: 1, in: store) == .accepted)  // accepted at 200
        let claimed = try store.claimDeliveries(
            .apns, from: [.default], limit: 1, at: 300, leaseMilliseconds: 60_000, owner: "w")
        try store.finish(claimed[0], .sent(apnsID: "A"), attempts: 1, at: 10_000, routing: .none)
        // Past the push's acceptance, before its delivery's end: the record stays, and so must the push.
        #expect(try store.deleteFinishedDeliveries(in: .default, endedBefore: 5_000, limit: 10) == 0)
        #expect(try store.deleteEmptyPushes(in: .default, acceptedBefore: 5_000, limit: 10) == 0)
        #expect(try store.push(id: "p", in: .default)?.deliveries.count == 1)
        #expect(try store.deleteFinishedDeliveries(in: .default, endedBefore: 20_000, limit: 10) == 1)
        #expect(try store.deleteEmptyPushes(in: .default, acceptedBefore: 20_000, limit: 10) == 1)
        #expect(try store.push(id: "p", in: .default) == nil)
    }

    @Test(
        "a burst of outcomes is recorded whole: sent ones with their APNs ids byte for byte, however odd, beside a retry and a failure",
        arguments: GatewayBackend.allCases)
    func outcomeBurst(_ backend: GatewayBackend) throws {
        let directory = TemporaryDirectory()
        let store = try Self.store(backend, in: directory)
        #expect(try Self.acceptPush(of: 7, in: store) == .accepted)
        let claimed = try store.claimDeliveries(
            .apns, from: [.default], limit: 7, at: 300, leaseMilliseconds: 60_000, owner: "a")
        #expect(claimed.count == 7)
        // Each a way to break an array literal written carelessly, or NULL taken for a word.
        let apnsIDs: [String?] = [#"a"b\c"#, "NULL", nil, "{1,2}", " spaced, \u{e9}\u{301}\u{1F512} "]
        let outcomes: [DeliveryOutcome] =
            apnsIDs.map { .sent(apnsID: $0) } + [
                .retry(at: 9_000, reason: DeliveryReason(text: "TooManyRequests")),
                .failed(reason: DeliveryReason(text: "BadTopic")),
            ]
        try store.finish(
            zip(claimed, outcomes).enumerated().map { index, pair in
                EndedAttempt(delivery: pair.0, outcome: pair.1, attempts: index + 1, time: 400)
            }, routing: .none)
        let states = try #require(try store.push(id: "p", in: .default)).deliveries
        #expect(states.map(\.status) == [.sent, .sent, .sent, .sent, .sent, .queued, .failed])
        #expect(states.prefix(5).map(\.apnsID) == apnsIDs)
        #expect(states.map(\.attempts) == Array(1...7))
        #expect(states.map(\.reason) == [nil, nil, nil, nil, nil, "TooManyRequests", "BadTopic"])
        #expect(
            try store.claimDeliveries(
                .apns, from: [.default], limit: 7, at: 9_000, leaseMilliseconds: 1_000, owner: "b"
            ).map(\.id)
                == [claimed[5].id], "the retry alone is due again")
    }

    @Test("one schema number names both stores: each numbers its migrations 1 to GatewaySchema.version, in order")
    func schemaNumbers() {
        #expect(SQLiteMigrations.all.map(\.number) == Array(1...GatewaySchema.version))
        #expect(PostgresMigrations.all.map(\.number) == Array(1...GatewaySchema.version))
    }
}
