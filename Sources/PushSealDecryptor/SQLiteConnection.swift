internal import CSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A short-lived SQLite connection: opened for one transaction, closed right after, so that two
/// processes sharing the file (app and extension) hold it as briefly as possible.
final class SQLiteConnection {
    /// A failed SQLite call, with SQLite's own message.
    struct Failure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    private let handle: OpaquePointer

    /// Opens (and creates, mode 0600) the database at `path`, with a busy timeout so that a
    /// writer in the other process makes this one wait rather than fail.
    init(path: String, busyTimeoutMilliseconds: Int32 = 5_000) throws {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if descriptor >= 0 { close(descriptor) }
        var handle: OpaquePointer?
        let status = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw Failure(message: "cannot open \(path): \(message)")
        }
        self.handle = handle
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
    }

    deinit { sqlite3_close(handle) }

    /// Runs SQL with no parameters and no result rows.
    func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw failure() }
    }

    /// Runs one statement with text and integer parameters; returns the rows changed.
    @discardableResult
    func run(_ sql: String, _ parameters: [Parameter] = []) throws -> Int {
        try withStatement(sql, parameters) { statement in
            guard sqlite3_step(statement) == SQLITE_DONE else { throw failure() }
            return Int(sqlite3_changes(handle))
        }
    }

    /// Runs a query and returns each row's first column as text and second as an integer.
    func pairs(_ sql: String) throws -> [(String, Int)] {
        try withStatement(sql, []) { statement in
            var rows: [(String, Int)] = []
            while true {
                let status = sqlite3_step(statement)
                if status == SQLITE_DONE { return rows }
                guard status == SQLITE_ROW else { throw failure() }
                let text = sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? ""
                rows.append((text, Int(sqlite3_column_int64(statement, 1))))
            }
        }
    }

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction: committed if it returns, rolled back if it throws.
    func transaction<Result>(_ body: () throws -> Result) throws -> Result {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// A bound value.
    enum Parameter {
        case text(String)
        case integer(Int)
    }

    private func withStatement<Result>(
        _ sql: String, _ parameters: [Parameter], _ body: (OpaquePointer) throws -> Result
    ) throws -> Result {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw failure() }
        defer { sqlite3_finalize(statement) }
        // SQLITE_TRANSIENT is a macro Swift cannot import: a destructor of -1 makes SQLite copy.
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for (index, parameter) in parameters.enumerated() {
            let position = Int32(index + 1)
            let status =
                switch parameter {
                case .text(let text): sqlite3_bind_text(statement, position, text, -1, transient)
                case .integer(let value): sqlite3_bind_int64(statement, position, sqlite3_int64(value))
                }
            guard status == SQLITE_OK else { throw failure() }
        }
        return try body(statement)
    }

    private func failure() -> Failure {
        Failure(message: String(cString: sqlite3_errmsg(handle)))
    }
}
