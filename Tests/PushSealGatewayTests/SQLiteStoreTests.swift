import PushSealGatewayStorage
import PushSealTestSupport
import Testing

/// What only SQLite's store needs proving: that the statements a running gateway repeats on its
/// one writer read through an index. The rules both stores share are `GatewayStoreTests`'.
@Suite("pushseal-gateway store on SQLite")
struct SQLiteStoreTests {
    /// The statements a running gateway repeats on its writer, whatever the outbox's size: a
    /// worker's lease renewal (every third of a lease) and the retention sweep's (every minute).
    static let repeatedStatements: [(name: String, sql: String)] = [
        ("lease renewal", LeaseStatements.renew(.sqlite)),
        ("ended deliveries", RetentionStatements.deleteFinishedDeliveries(.sqlite)),
        ("empty pushes", RetentionStatements.deleteEmptyPushes(.sqlite)),
        ("ended webhook events", WebhookOutbox.deleteFinished(.sqlite)),
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
