#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The record of `event_id`s already delivered, and counters of outcomes, in an SQLite file.
///
/// A notification can be delivered twice; the `events` table's primary key (a unique index on
/// `event_id`) is what detects the repeat, so the app refreshes instead of navigating twice.
/// Every call opens the database, runs one short `BEGIN IMMEDIATE` transaction and closes it,
/// with a busy timeout, so the app and the extension can use it at once. The journal mode is
/// SQLite's default (rollback journal), not WAL, which is unsafe in a shared container. Entries
/// older than ``retentionSeconds`` are pruned as new ones arrive. Outcome counters hold a reason
/// and a count: never content. The schema's version lives in SQLite's `user_version`
/// (``schemaVersion``); a file from a newer build is refused rather than altered.
public struct EventLedger: Sendable {
    /// The database file.
    public let path: String
    /// How long an `event_id` is remembered: 30 days.
    public static let retentionSeconds = 30 * 24 * 3600

    /// Whether an `event_id` was new.
    public enum Recording: Sendable, Equatable {
        /// First delivery.
        case new
        /// Seen before: refresh, do not navigate again.
        case duplicate
    }

    /// A ledger in `path`, created on first use.
    public init(path: String) {
        self.path = path
    }

    /// The schema version this build writes. Files written before versioning read 0 and have
    /// the same tables, so they are adopted as they are.
    public static let schemaVersion = 1

    private static let schema = """
        CREATE TABLE IF NOT EXISTS events (event_id TEXT PRIMARY KEY NOT NULL, first_seen INTEGER NOT NULL);
        CREATE INDEX IF NOT EXISTS events_by_age ON events (first_seen);
        CREATE TABLE IF NOT EXISTS outcomes (outcome TEXT PRIMARY KEY NOT NULL, count INTEGER NOT NULL);
        """

    /// Opens the file, creating or adopting the schema on first use.
    /// - Throws: when the file's schema is newer than ``schemaVersion``: an older extension must
    ///   not write into a database whose meaning it does not know.
    private func connect() throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path)
        let version = try connection.pairs("SELECT 'user_version', user_version FROM pragma_user_version").first?.1 ?? 0
        if version == Self.schemaVersion { return connection }
        guard version < Self.schemaVersion else {
            throw SQLiteConnection.Failure(
                message: "\(path) has event ledger schema version \(version); this build knows \(Self.schemaVersion)")
        }
        // Idempotent, so two processes that both find version 0 may both run it.
        try connection.transaction {
            try connection.execute(Self.schema)
            try connection.execute("PRAGMA user_version = \(Self.schemaVersion)")
        }
        return connection
    }

    /// Records `eventID`, pruning entries past the retention period.
    /// - Parameters:
    ///   - eventID: the decrypted payload's `event_id`.
    ///   - now: the current UNIX time; nil reads the clock (tests pass their own).
    public func record(eventID: String, now: Int? = nil) throws -> Recording {
        let now = now ?? Int(time(nil))
        let connection = try connect()
        return try connection.transaction {
            try connection.run("DELETE FROM events WHERE first_seen < ?", [.integer(now - Self.retentionSeconds)])
            let inserted = try connection.run(
                "INSERT OR IGNORE INTO events (event_id, first_seen) VALUES (?, ?)", [.text(eventID), .integer(now)])
            return inserted == 1 ? .new : .duplicate
        }
    }

    /// Adds one to the counter of `outcome` (a status or reason, e.g. `decrypted`, `unknown-key`).
    public func countOutcome(_ outcome: String) throws {
        let connection = try connect()
        _ = try connection.transaction {
            try connection.run(
                "INSERT INTO outcomes (outcome, count) VALUES (?, 1) "
                    + "ON CONFLICT (outcome) DO UPDATE SET count = count + 1", [.text(outcome)])
        }
    }

    /// The outcome counters, by outcome name.
    public func outcomeCounts() throws -> [String: Int] {
        let rows = try connect().pairs("SELECT outcome, count FROM outcomes ORDER BY outcome")
        return Dictionary(rows, uniquingKeysWith: +)
    }

    /// How many `event_id`s are remembered.
    public func eventCount() throws -> Int {
        try connect().pairs("SELECT 'events', COUNT(*) FROM events").first?.1 ?? 0
    }
}
