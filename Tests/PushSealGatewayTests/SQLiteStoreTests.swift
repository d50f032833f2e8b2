import PushSealGatewayModel
import PushSealGatewayStorage
import PushSealTestSupport
import Testing

/// What only SQLite's store needs proving: that the statements a running gateway repeats on its
/// one writer read through an index. The rules both stores share are `GatewayStoreTests`'.
@Suite("pushseal-gateway store on SQLite")
struct SQLiteStoreTests {
    /// The statements a running gateway repeats, whatever the outbox's size: on its writer, a
    /// worker's lease renewal (every third of a lease), the retention sweep's (every minute), and a
    /// device deletion's; and the status page's count of receipts (every 5 s while it is open).
    static let repeatedStatements: [(name: String, sql: String)] = [
        ("lease renewal", LeaseStatements.renew(.sqlite)),
        ("ended deliveries", RetentionStatements.deleteFinishedDeliveries(.sqlite)),
        ("an abandoned app's queued deliveries", RetentionStatements.deleteAbandonedDeliveries(.sqlite)),
        ("empty pushes", RetentionStatements.deleteEmptyPushes(.sqlite)),
        ("ended webhook events", WebhookOutbox.deleteFinished(.sqlite)),
        ("expired fetch objects", RetentionStatements.deleteExpiredFetchObjects(.sqlite)),
        ("fetch objects past retention", RetentionStatements.deleteOldFetchObjects(.sqlite)),
        ("a device's fetch objects beyond its newest", FetchObjectStatements.deleteBeyondNewest(.sqlite)),
        ("a deleted device's queued deliveries", DeviceDeletionStatements.queued(.sqlite)),
        ("ending them", DeviceDeletionStatements.end(.sqlite)),
        ("a deleted device's fetch objects", DeviceDeletionStatements.fetchObjects(.sqlite)),
        ("the status page's receipts", DisplayCount.query(.sqlite)),
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
            let plan = try sqlite.read("EXPLAIN QUERY PLAN " + statement.sql).compactMap { $0[3].text }
            let scans = plan.filter { step in tables.contains { step == "SCAN \($0)" || step.hasPrefix("SCAN \($0) ") }
            }
            #expect(!plan.isEmpty && scans.isEmpty, "\(statement.name): \(plan)")
        }
    }
}

extension SQLiteStoreTests {
    @Test("a migration that would leave a foreign key naming no row is rolled back whole, its schema number unchanged")
    func migrationLeavingOrphansIsRolledBack() throws {
        let directory = TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.file("gateway.db"))
        for migration in SQLiteMigrations.all { try database.apply(migration) }
        try database.query("INSERT INTO pushes (id, accepted_at) VALUES ('p', 1)")
        try database.query(
            "INSERT INTO deliveries (push_id, device_id, kind, address, headers, body, status, next_attempt_at, "
                + "accepted_at) VALUES ('p', 'd', 'apns', 'aa', '[]', X'01', 'queued', 1, 1)")
        let breaking = SchemaMigration(GatewaySchema.version + 1, "CREATE TABLE kept (x); DELETE FROM pushes")
        #expect(throws: SQLiteDatabase.Failure.self) { try database.apply(breaking) }
        #expect(try database.query("SELECT count(*) FROM pushes").first?.first?.integer == 1, "the delete undone")
        #expect(try database.query("SELECT count(*) FROM sqlite_master WHERE name = 'kept'").first?.first?.integer == 0)
        #expect(try database.query("PRAGMA user_version").first?.first?.integer == Int64(GatewaySchema.version))
        // Foreign keys are enforced again afterwards.
        #expect(throws: SQLiteDatabase.Failure.self) { try database.query("DELETE FROM pushes") }
    }
}
