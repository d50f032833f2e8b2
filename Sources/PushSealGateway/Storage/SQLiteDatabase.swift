internal import CSQLite
internal import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One SQLite database file for the gateway: created 0600 (its `-wal` and `-shm` files take the
/// same mode), in WAL mode, each call serialized on one connection. Statements always bind their
/// parameters; no value is ever spliced into SQL.
final class SQLiteDatabase: Sendable {
    /// A column or parameter value.
    typealias Value = DatabaseValue

    /// A failure, with SQLite's message (never a value that was bound).
    struct Failure: Error, CustomStringConvertible {
        /// What SQLite said.
        let description: String
    }

    /// The connection, used by one caller at a time.
    private struct Connection: @unchecked Sendable {
        let handle: OpaquePointer
    }

    private let connection: Mutex<Connection>

    /// Opens (creating it 0600 when absent) the database at `path`.
    init(path: String) throws {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw Failure(description: "\(path) cannot be opened: \(String(cString: strerror(errno)))")
        }
        close(descriptor)
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_NOFOLLOW
        guard sqlite3_open_v2(path, &handle, flags, nil) == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw Failure(description: "\(path) cannot be opened: \(message)")
        }
        sqlite3_busy_timeout(handle, 10_000)
        connection = Mutex(Connection(handle: handle))
        try execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON")
    }

    deinit {
        connection.withLock { _ = sqlite3_close($0.handle) }
    }

    /// Runs SQL without parameters or results (schema changes, pragmas).
    func execute(_ sql: String) throws {
        try connection.withLock { connection in
            guard sqlite3_exec(connection.handle, sql, nil, nil, nil) == SQLITE_OK else {
                throw Failure(description: String(cString: sqlite3_errmsg(connection.handle)))
            }
        }
    }

    /// Runs one statement; the rows it returns.
    @discardableResult
    func query(_ sql: String, _ parameters: [Value] = []) throws -> [[Value]] {
        try connection.withLock { try Self.query(sql, parameters, on: $0.handle) }
    }

    /// Statements run inside one transaction.
    struct Transaction: @unchecked Sendable {
        fileprivate let handle: OpaquePointer

        /// Runs one statement; the rows it returns.
        @discardableResult
        func query(_ sql: String, _ parameters: [Value] = []) throws -> [[Value]] {
            try SQLiteDatabase.query(sql, parameters, on: handle)
        }
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction, committed when it returns and rolled back
    /// when it throws.
    func transaction<Result>(_ body: (Transaction) throws -> Result) throws -> Result {
        try connection.withLock { connection in
            try Self.query("BEGIN IMMEDIATE", [], on: connection.handle)
            do {
                let result = try body(Transaction(handle: connection.handle))
                try Self.query("COMMIT", [], on: connection.handle)
                return result
            } catch {
                _ = try? Self.query("ROLLBACK", [], on: connection.handle)
                throw error
            }
        }
    }

    @discardableResult
    fileprivate static func query(_ sql: String, _ parameters: [Value], on handle: OpaquePointer) throws -> [[Value]] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw Failure(description: String(cString: sqlite3_errmsg(handle)))
        }
        defer { sqlite3_finalize(statement) }
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
            guard status == SQLITE_OK else { throw Failure(description: String(cString: sqlite3_errmsg(handle))) }
        }
        var rows: [[Value]] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { return rows }
            guard step == SQLITE_ROW else { throw Failure(description: String(cString: sqlite3_errmsg(handle))) }
            rows.append((0..<sqlite3_column_count(statement)).map { column(statement, $0) })
        }
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
