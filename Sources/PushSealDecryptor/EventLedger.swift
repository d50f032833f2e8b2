#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The record of `event_id`s already delivered, of forwarded Web Push messages already opened,
/// and counters of outcomes, in an SQLite file.
///
/// A notification can be delivered twice; the `events` table's primary key (a unique index on
/// `event_id`) is what detects the repeat, so the app refreshes instead of navigating twice. A
/// Web Push message can be replayed (RFC 8291 has no protection against it): the `messages`
/// table's key, each opened message's identity (`WebPushMessage.replayIdentity`), detects that,
/// apart from `event_id`s, so that no sender's `event_id` can pass for a message.
/// Every call opens the database, runs one short `BEGIN IMMEDIATE` transaction and closes it,
/// with a busy timeout, so the app and the extension can use it at once. The journal mode is
/// SQLite's default (rollback journal), not WAL, which is unsafe in a shared container. Entries
/// older than ``retentionSeconds`` are pruned as new ones arrive. Outcome counters hold a reason
/// and a count: never content. The schema's version lives in SQLite's `user_version`
/// (``schemaVersion``); a file from a newer build is refused rather than altered.
///
/// A damaged file would silently turn duplicate detection off, so it is never kept: when SQLite
/// reports the file corrupt or not a database, it is moved aside as
/// `ledger.sqlite.corrupt-<UNIX time>` (with its journal), a fresh ledger takes its place, the
/// outcome `ledger-reset` is counted in it, ``onReset`` is told, and the operation runs again.
public struct EventLedger: Sendable {
    /// The database file.
    public let path: String
    /// Called after a corrupt file was moved aside, with the name it was moved to.
    public let onReset: (@Sendable (_ movedTo: String) -> Void)?
    /// How long an `event_id` is remembered: 30 days.
    public static let retentionSeconds = 30 * 24 * 3600

    /// Whether an `event_id` was new.
    public enum Recording: Sendable, Equatable {
        /// First delivery.
        case new
        /// Seen before: refresh, do not navigate again.
        case duplicate
    }

    /// A ledger in `path`, created on first use; `onReset` hears of a corrupt file moved aside.
    public init(path: String, onReset: (@Sendable (_ movedTo: String) -> Void)? = nil) {
        self.path = path
        self.onReset = onReset
    }

    /// The outcome counted when a corrupt ledger was replaced.
    public static let resetOutcome = "ledger-reset"

    /// The schema version this build writes. Files written before versioning read 0 and have
    /// version 1's tables, so they are adopted as they are; version 2 adds `messages` (every
    /// statement of the schema creates only what is missing, so it takes any older file up).
    public static let schemaVersion = 2

    private static let schema = """
        CREATE TABLE IF NOT EXISTS events (event_id TEXT PRIMARY KEY NOT NULL, first_seen INTEGER NOT NULL);
        CREATE INDEX IF NOT EXISTS events_by_age ON events (first_seen);
        CREATE TABLE IF NOT EXISTS outcomes (outcome TEXT PRIMARY KEY NOT NULL, count INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS messages (message_id TEXT PRIMARY KEY NOT NULL, first_seen INTEGER NOT NULL);
        CREATE INDEX IF NOT EXISTS messages_by_age ON messages (first_seen);
        """

    /// Checks the schema of an opened file, creating or adopting it on first use.
    /// - Throws: when the file's schema is newer than ``schemaVersion``: an older extension must
    ///   not write into a database whose meaning it does not know.
    private func connect(_ connection: SQLiteConnection) throws -> SQLiteConnection {
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
        try record(eventID, in: "events", key: "event_id", now: now)
    }

    /// Records a forwarded Web Push message opened, by its identity
    /// (`WebPushMessage.replayIdentity`), pruning entries past the retention period: a
    /// ``Recording/duplicate`` is a replay.
    /// - Parameters:
    ///   - messageID: the message's identity.
    ///   - now: the current UNIX time; nil reads the clock (tests pass their own).
    public func record(messageID: String, now: Int? = nil) throws -> Recording {
        try record(messageID, in: "messages", key: "message_id", now: now)
    }

    /// Records `id` in `table` (whose primary key is `key`), pruning its entries past the
    /// retention period.
    private func record(_ id: String, in table: String, key: String, now: Int?) throws -> Recording {
        let now = now ?? Int(time(nil))
        return try withConnection { connection in
            try connection.transaction {
                try connection.run(
                    "DELETE FROM \(table) WHERE first_seen < ?", [.integer(now - Self.retentionSeconds)])
                let inserted = try connection.run(
                    "INSERT OR IGNORE INTO \(table) (\(key), first_seen) VALUES (?, ?)", [.text(id), .integer(now)])
                return inserted == 1 ? .new : .duplicate
            }
        }
    }

    /// Adds one to the counter of `outcome` (a status or reason, e.g. `decrypted`, `unknown-key`).
    public func countOutcome(_ outcome: String) throws {
        try withConnection { try Self.count(outcome, in: $0) }
    }

    private static func count(_ outcome: String, in connection: SQLiteConnection) throws {
        _ = try connection.transaction {
            try connection.run(
                "INSERT INTO outcomes (outcome, count) VALUES (?, 1) "
                    + "ON CONFLICT (outcome) DO UPDATE SET count = count + 1", [.text(outcome)])
        }
    }

    /// Opens the ledger and checks that it can be used, resetting a corrupt one; the CLI uses it
    /// to warn that duplicates will not be detected.
    public func check() throws {
        try withConnection { _ in }
    }

    /// The outcome counters, by outcome name.
    public func outcomeCounts() throws -> [String: Int] {
        let rows = try withConnection { try $0.pairs("SELECT outcome, count FROM outcomes ORDER BY outcome") }
        return Dictionary(rows, uniquingKeysWith: +)
    }

    /// How many `event_id`s are remembered.
    public func eventCount() throws -> Int {
        try withConnection { try $0.pairs("SELECT 'events', COUNT(*) FROM events").first?.1 ?? 0 }
    }

    /// Runs `body` on a connection; when the file turns out corrupt, moves it aside, starts a
    /// fresh ledger that counts the reset, and runs `body` once more on it.
    private func withConnection<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        var damaged: FileIdentity?
        do {
            let connection = try SQLiteConnection(path: path)
            damaged = connection.identity
            return try body(try connect(connection))
        } catch let failure as SQLiteConnection.Failure where failure.isCorruption {
            guard let damaged else { throw failure }
            let movedTo = try moveAside(damaged)
            let fresh = try connect(try SQLiteConnection(path: path))
            try Self.count(Self.resetOutcome, in: fresh)
            onReset?(movedTo)
            return try body(fresh)
        }
    }

    /// Renames the damaged file (and its rollback journal) out of the way, unless another
    /// process already replaced it.
    private func moveAside(_ damaged: FileIdentity) throws -> String {
        guard (try? FileIdentity(path: path)) == damaged else { return path }
        var target = "\(path).corrupt-\(time(nil))"
        var attempt = 1
        while access(target, F_OK) == 0 {
            attempt += 1
            target = "\(path).corrupt-\(time(nil))-\(attempt)"
        }
        guard rename(path, target) == 0 else {
            throw SQLiteConnection.Failure(message: "\(ContainerFailure.system("rename", path, errno))")
        }
        rename("\(path)-journal", "\(target)-journal")
        return target
    }
}
