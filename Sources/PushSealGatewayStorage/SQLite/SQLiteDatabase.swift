internal import CSQLite
internal import Foundation
internal import PushSealCore
internal import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One SQLite database file for the gateway: created 0600 (its `-wal` and `-shm` files take the
/// same mode), in WAL mode. Writes go through one connection, and concurrent ones share a
/// transaction and its fsync (``SQLiteGroupCommit``); reads go through connections of their own,
/// which in WAL mode never wait for a writer, so a write lock held elsewhere (another process, a
/// long transaction) stalls no read. No call waits longer than
/// ``callWait`` in all, for its connection and then for SQLite's lock (the busy timeout is what
/// is left of it); past that it fails, and the API answers 503. Statements always bind their parameters; no value is
/// ever spliced into SQL.
package final class SQLiteDatabase: Sendable {
    /// A column or parameter value.
    package typealias Value = DatabaseValue

    /// How long one call may wait in all: for its connection, held by another call of this
    /// process, and then for SQLite's lock, held by another connection.
    package static let callWait = Duration.seconds(2)
    /// The least busy timeout a call gets, however long it waited for its connection.
    package static let minimumBusyWait = Duration.milliseconds(100)
    /// Connections for reads: as many as may read at once.
    package static let readers = 4

    /// A failure, with SQLite's message (never a value that was bound).
    package struct Failure: StoreFailure, CustomStringConvertible {
        /// What SQLite said.
        package let description: String
        /// SQLite's extended result code, when SQLite gave one.
        package var code: Int32? = nil
        /// True when the caller gave up on a commit that had not ended: it may still commit.
        package var outcomeUnknown = false

        /// A failure of SQLite's own, with its message and code.
        init(sqlite handle: OpaquePointer) {
            description = String(cString: sqlite3_errmsg(handle))
            code = sqlite3_extended_errcode(handle)
        }

        /// A failure the gateway names.
        package init(description: String, code: Int32? = nil) {
            self.description = description
            self.code = code
        }

        /// A call that waited out its time for the writer or a connection: `SQLITE_BUSY`.
        static func busy(_ description: String) -> Failure { Failure(description: description, code: SQLITE_BUSY) }

        /// What SQLite's primary result code says: busy or locked, full, an I/O error, a malformed
        /// (or not a database) file, read-only, a file that cannot be opened.
        package var cause: StoreFailureCause {
            switch code.map({ $0 & 0xFF }) {
            case SQLITE_BUSY?, SQLITE_LOCKED?: .busy
            case SQLITE_FULL?: .full
            case SQLITE_IOERR?: .io
            case SQLITE_CORRUPT?, SQLITE_NOTADB?: .corrupt
            case SQLITE_READONLY?: .readOnly
            case SQLITE_CANTOPEN?: .unreachable
            default: .other
            }
        }

        /// A call that waited out its time for the writer, the connection or SQLite's lock
        /// (`SQLITE_BUSY`, `SQLITE_LOCKED`).
        package var isTransient: Bool {
            guard let code else { return false }
            return code & 0xFF == SQLITE_BUSY || code & 0xFF == SQLITE_LOCKED
        }
    }

    private let writer: SQLiteHandle
    private let groupCommit: SQLiteGroupCommit
    private let readers: [SQLiteHandle]
    private let nextReader = Atomic<Int>(0)

    /// Opens (creating it 0600 when absent) the database at `path`.
    package init(path: String) throws {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw Failure(description: "\(path) cannot be opened: \(String(cString: strerror(errno)))")
        }
        close(descriptor)
        let writer = try SQLiteHandle(path: path)
        try writer.use { try Self.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL", on: $0) }
        self.writer = writer
        groupCommit = SQLiteGroupCommit { batch, deadline in
            try writer.use(until: deadline) { handle in
                let before = sqlite3_total_changes64(handle)
                try Self.transaction("BEGIN IMMEDIATE", on: handle) {
                    try SQLiteGroupCommit.run(batch, transaction: $0)
                }
                return sqlite3_total_changes64(handle) != before
            }
        }
        // Readers are made read-only by query_only: a write through one is an error.
        readers = try (0..<Self.readers).map { _ in
            let reader = try SQLiteHandle(path: path)
            try reader.use { try Self.execute("PRAGMA query_only = ON", on: $0) }
            return reader
        }
    }

    /// Runs `migration`'s SQL and sets the schema's `user_version` to its number, in one transaction
    /// on the writer, as SQLite's documented way to change a table's definition: foreign keys are
    /// off while it runs (so a table others reference can be rebuilt: made anew, copied, dropped
    /// and renamed), and checked whole (`PRAGMA foreign_key_check`) before it commits; any failure
    /// rolls it back.
    package func apply(_ migration: SchemaMigration) throws {
        try writer.use { handle in
            try Self.execute("PRAGMA foreign_keys = OFF", on: handle)
            defer { _ = sqlite3_exec(handle, "PRAGMA foreign_keys = ON", nil, nil, nil) }
            try Self.execute("BEGIN IMMEDIATE", on: handle)
            do {
                try Self.execute(migration.sql, on: handle)
                let orphans = try Self.query("PRAGMA foreign_key_check", [], on: handle)
                guard orphans.isEmpty else {
                    throw Failure(
                        description: "schema \(migration.number) would leave \(orphans.count) rows whose foreign key "
                            + "names no row")
                }
                try Self.execute("PRAGMA user_version = \(migration.number); COMMIT", on: handle)
            } catch {
                _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
                throw error
            }
        }
    }

    /// Runs SQL without parameters or results (schema changes, pragmas) on the writer.
    package func execute(_ sql: String) throws {
        try writer.use { try Self.execute(sql, on: $0) }
    }

    private static func execute(_ sql: String, on handle: OpaquePointer) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
            throw Failure(sqlite: handle)
        }
    }

    /// Runs one statement that writes, in a transaction of its own (committed with others at once);
    /// the rows it returns.
    @discardableResult
    package func query(_ sql: String, _ parameters: [Value] = []) throws -> [[Value]] {
        try transaction { try $0.query(sql, parameters) }
    }

    /// Runs one statement that only reads, on a reader connection; the rows it returns.
    package func read(_ sql: String, _ parameters: [Value] = []) throws -> [[Value]] {
        try withReader { try Self.query(sql, parameters, on: $0) }
    }

    /// Statements run inside one transaction.
    package struct Transaction: @unchecked Sendable {
        fileprivate let handle: OpaquePointer

        /// Runs one statement; the rows it returns.
        @discardableResult
        package func query(_ sql: String, _ parameters: [Value] = []) throws -> [[Value]] {
            try SQLiteDatabase.query(sql, parameters, on: handle)
        }

        /// Whether the transaction is still open: SQLite rolls back the whole transaction itself
        /// on some errors (a full disk, an I/O error), and its savepoints with it.
        package var isOpen: Bool { sqlite3_get_autocommit(handle) == 0 }
    }

    /// Runs `body` as one transaction on the writer: committed when it returns (perhaps with
    /// others' in the same commit, ``SQLiteGroupCommit``), and rolled back when it throws. It
    /// returns only once its writes are committed.
    package func transaction<Result>(_ body: @escaping (Transaction) throws -> Result) throws -> Result {
        // The writer's thread runs the body, and may still hold it after this call gave up.
        let box = ResultBox<Result>()
        try groupCommit.perform { box.value = try body($0) }
        guard let result = box.value else { throw Failure(description: "a transaction ended without its result") }
        return result
    }

    /// The result of a transaction the writer's thread ran, handed to its caller.
    private final class ResultBox<Value> {
        var value: Value?
    }

    /// The writer's commits, transactions and busy time so far (``SQLiteGroupCommit/activity``).
    package var writerActivity: SQLiteGroupCommit.Activity { groupCommit.activity }

    /// Whether the writer can write now (``SQLiteGroupCommit/health``).
    package var writeHealth: StoreWriteHealth { groupCommit.health }

    /// Runs `body` in one read transaction on a reader: every statement sees the same snapshot,
    /// and no write lock is taken.
    package func readTransaction<Result>(_ body: (Transaction) throws -> Result) throws -> Result {
        try withReader { try Self.transaction("BEGIN", on: $0, body) }
    }

    private static func transaction<Result>(
        _ begin: String, on handle: OpaquePointer, _ body: (Transaction) throws -> Result
    ) throws -> Result {
        try query(begin, [], on: handle)
        do {
            let result = try body(Transaction(handle: handle))
            try query("COMMIT", [], on: handle)
            return result
        } catch {
            _ = try? query("ROLLBACK", [], on: handle)
            throw error
        }
    }

    /// Copies the database, as of one moment, to a new file at `path` (created 0600; an existing
    /// file is refused), with SQLite's online backup: writers go on meanwhile (WAL), and the copy
    /// is a consistent database of its own.
    package func backup(to path: String) throws {
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw Failure(description: "\(path) cannot be created: \(String(cString: strerror(errno)))")
        }
        close(descriptor)
        var target: OpaquePointer?
        defer { sqlite3_close(target) }
        guard sqlite3_open_v2(path, &target, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, nil) == SQLITE_OK,
            let target
        else {
            unlink(path)
            throw Failure(description: "\(path) cannot be opened")
        }
        try withReader { source in
            guard let backup = sqlite3_backup_init(target, "main", source, "main") else {
                throw Failure(description: String(cString: sqlite3_errmsg(target)))
            }
            let step = sqlite3_backup_step(backup, -1)
            sqlite3_backup_finish(backup)
            guard step == SQLITE_DONE else {
                unlink(path)
                throw Failure(description: "the backup stopped: \(String(cString: sqlite3_errstr(step)))")
            }
        }
    }

    /// Runs `body` on the first free reader connection, starting from the next in turn; when
    /// all are in use, waits for that one.
    private func withReader<Result>(_ body: (OpaquePointer) throws -> Result) throws -> Result {
        let first = nextReader.add(1, ordering: .relaxed).oldValue
        for offset in 0..<readers.count {
            if let result = try readers[(first + offset) % readers.count].useIfFree(body) { return result }
        }
        return try readers[first % readers.count].use(body)
    }

    /// The most statements a connection keeps prepared; past it, a statement is finalized after use.
    package static let preparedStatements = 64

    /// Runs `sql` on `handle` with `parameters`: a statement prepared before on this connection
    /// is reused (SQLite keeps a connection's statements; one with the same text, not running, is
    /// reset and bound again), so a statement is parsed and planned once per connection.
    @discardableResult
    fileprivate static func query(_ sql: String, _ parameters: [Value], on handle: OpaquePointer) throws -> [[Value]] {
        // The text is made a C string once: passing `sql` to each C call would copy it each time.
        let (statement, kept, reused) = try sql.withCString { text in
            try preparedStatement(text, on: handle)
        }
        defer {
            if !reused && kept >= preparedStatements {
                sqlite3_finalize(statement)
            } else {
                sqlite3_reset(statement)
                sqlite3_clear_bindings(statement)
            }
        }
        for (index, parameter) in parameters.enumerated() {
            let position = Int32(index + 1)
            let status: Int32
            switch parameter {
            case .null: status = sqlite3_bind_null(statement, position)
            case .integer(let value): status = sqlite3_bind_int64(statement, position, value)
            case .text(let value): status = sqlite3_bind_text(statement, position, value, -1, sqliteTransient)
            case .blob(let value):
                status = value.withUnsafeBytes {
                    sqlite3_bind_blob(
                        statement, position, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count),
                        sqliteTransient)
                }
            }
            guard status == SQLITE_OK else { throw Failure(sqlite: handle) }
        }
        var rows: [[Value]] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { return rows }
            guard step == SQLITE_ROW else { throw Failure(sqlite: handle) }
            rows.append((0..<sqlite3_column_count(statement)).map { column(statement, $0) })
        }
    }

    /// The statement of `text` on `handle`: a kept one that is not running, else a new one
    /// (kept when fewer than ``preparedStatements`` are); how many were kept, and whether it was
    /// reused.
    private static func preparedStatement(_ text: UnsafePointer<CChar>, on handle: OpaquePointer) throws -> (
        statement: OpaquePointer, kept: Int, reused: Bool
    ) {
        var kept = 0
        var candidate = sqlite3_next_stmt(handle, nil)
        while let statement = candidate {
            if sqlite3_stmt_busy(statement) == 0, strcmp(sqlite3_sql(statement), text) == 0 {
                return (statement, kept, true)
            }
            kept += 1
            candidate = sqlite3_next_stmt(handle, statement)
        }
        var prepared: OpaquePointer?
        let flags = kept < preparedStatements ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        guard sqlite3_prepare_v3(handle, text, -1, flags, &prepared, nil) == SQLITE_OK, let prepared else {
            throw Failure(sqlite: handle)
        }
        return (prepared, kept, false)
    }

    private static func column(_ statement: OpaquePointer, _ index: Int32) -> Value {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, index))
        case SQLITE_TEXT: return .text(String(cString: sqlite3_column_text(statement, index)))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, index))
            guard count > 0, let bytes = sqlite3_column_blob(statement, index) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }
}

/// SQLite's `SQLITE_TRANSIENT`: copy the bound value now.
private let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One connection to the database, used by one caller at a time, waited for at most
/// ``SQLiteDatabase/callWait``, lock and busy timeout together.
private final class SQLiteHandle: @unchecked Sendable {
    private let handle: OpaquePointer
    private let lock = NSLock()

    package init(path: String) throws {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW
        guard sqlite3_open_v2(path, &handle, flags, nil) == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw SQLiteDatabase.Failure(description: "\(path) cannot be opened: \(message)")
        }
        guard sqlite3_exec(handle, "PRAGMA foreign_keys = ON", nil, nil, nil) == SQLITE_OK else {
            sqlite3_close(handle)
            throw SQLiteDatabase.Failure(description: "\(path): foreign keys cannot be enforced")
        }
        self.handle = handle
    }

    deinit {
        // The statements kept prepared (SQLiteDatabase.query), then the connection.
        while let statement = sqlite3_next_stmt(handle, nil) { sqlite3_finalize(statement) }
        sqlite3_close(handle)
    }

    /// Runs `body` with the connection once no other caller holds it, waiting until `deadline` at
    /// most. SQLite's busy timeout is then what is left until `deadline` (at least
    /// ``SQLiteDatabase/minimumBusyWait``).
    /// - Throws: ``SQLiteDatabase/Failure`` when the connection stayed held all that time.
    package func use<Result>(
        until deadline: ContinuousClock.Instant = .now + SQLiteDatabase.callWait,
        _ body: (OpaquePointer) throws -> Result
    ) throws -> Result {
        let wait = max(Duration.zero, deadline - ContinuousClock.now)
        guard lock.lock(before: Date(timeIntervalSinceNow: wait.seconds)) else {
            throw SQLiteDatabase.Failure.busy("the database connection stayed busy for \(SQLiteDatabase.callWait)")
        }
        defer { lock.unlock() }
        let left = max(SQLiteDatabase.minimumBusyWait, deadline - ContinuousClock.now)
        sqlite3_busy_timeout(handle, Int32(left.seconds * 1_000))
        return try body(handle)
    }

    /// Runs `body` with the connection if no other caller holds it now; nil otherwise.
    package func useIfFree<Result>(_ body: (OpaquePointer) throws -> Result) throws -> Result? {
        guard lock.try() else { return nil }
        defer { lock.unlock() }
        sqlite3_busy_timeout(handle, Int32(SQLiteDatabase.callWait.seconds * 1_000))
        return try body(handle)
    }
}
