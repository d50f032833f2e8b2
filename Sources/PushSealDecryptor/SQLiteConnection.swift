// SQLite is part of Apple's SDKs; on Linux it comes from libsqlite3-dev.
#if canImport(SQLite3)
    internal import SQLite3
#else
    internal import CSQLite
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A short-lived SQLite connection: opened for one transaction, closed right after, so that two
/// processes sharing the file (app and extension) hold it as briefly as possible.
///
/// The file lives in the shared container, so it is opened under the trust rules of
/// ``StoreDirectory``: created 0600 if missing, never through a symbolic link or a hard link (its
/// journal files included)
/// (`SQLITE_OPEN_NOFOLLOW`), and refused unless it is a regular file owned by this process's
/// user with a private mode; the file SQLite opened is checked to be the one that was checked.
final class SQLiteConnection {
    /// A failed SQLite call, with SQLite's own message and primary result code.
    struct Failure: Error, CustomStringConvertible {
        let message: String
        /// SQLite's primary result code (`SQLITE_CORRUPT`, `SQLITE_BUSY`, …); 0 when the failure
        /// is PushSeal's own (a refused file, a newer schema).
        var code: Int32 = 0
        var description: String { message }

        /// True when the file is damaged or is not a database at all.
        var isCorruption: Bool { code == SQLITE_CORRUPT || code == SQLITE_NOTADB }
    }

    private let handle: OpaquePointer
    /// The device and inode of the file opened, to move aside exactly that file.
    let identity: FileIdentity

    /// Opens (and creates, mode 0600) the database at `path`, with a busy timeout so that a
    /// writer in the other process makes this one wait rather than fail.
    init(path: String, busyTimeoutMilliseconds: Int32 = 5_000) throws {
        let checked = try Self.openChecked(path, O_RDWR | O_CREAT)
        defer { close(checked) }
        identity = try FileIdentity(descriptor: checked, path: path)
        try Self.checkCompanions(of: path)
        StoreProtection.apply(to: path)
        var handle: OpaquePointer?
        var flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW
        #if canImport(SQLite3)
            // Apple's SQLite gives the journal and its companions the store's class too.
            flags |= SQLITE_OPEN_FILEPROTECTION_COMPLETEUNTILFIRSTUSERAUTHENTICATION
        #endif
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw Failure(message: "cannot open \(path): \(message)", code: status & 0xFF)
        }
        self.handle = handle
        guard (try? FileIdentity(path: path)) == identity else {
            throw Failure(message: "\(path) was replaced while it was being opened")
        }
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
    }

    deinit { sqlite3_close(handle) }

    /// SQLite opens its journal (`-journal`, or `-wal` and `-shm`) itself: each that exists must
    /// pass the same trust rules as the database, so that none is a link into another file.
    private static func checkCompanions(of path: String) throws {
        for suffix in ["-journal", "-wal", "-shm"] {
            let companion = path + suffix
            var info = stat()
            guard lstat(companion, &info) == 0 else { continue }
            close(try openChecked(companion, O_RDONLY))
        }
    }

    /// `path` opened with `flags` (never through a symbolic link, never blocking on a FIFO; a
    /// created file is 0600) and checked under the store's trust rules on that descriptor.
    private static func openChecked(_ path: String, _ flags: Int32) throws -> Int32 {
        let descriptor = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Failure(message: "\(ContainerFailure.system("open", path, errno))") }
        do {
            try StoreDirectory.checkFile(descriptor, path, maximumSize: nil)
            return descriptor
        } catch {
            close(descriptor)
            throw Failure(message: "\(error)")
        }
    }

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
                // By its byte count: text may hold NUL.
                let count = Int(sqlite3_column_bytes(statement, 0))
                let text = sqlite3_column_text(statement, 0).map {
                    String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
                }
                rows.append((text ?? "", Int(sqlite3_column_int64(statement, 1))))
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
            let status: Int32
            switch parameter {
            case .text(var text):
                // Bound by its byte length, never as a C string: a NUL inside must not cut it.
                if text.isEmpty {
                    status = sqlite3_bind_text(statement, position, "", 0, transient)
                } else {
                    status = text.withUTF8 { bytes in
                        bytes.withMemoryRebound(to: CChar.self) {
                            sqlite3_bind_text(statement, position, $0.baseAddress, Int32($0.count), transient)
                        }
                    }
                }
            case .integer(let value):
                status = sqlite3_bind_int64(statement, position, sqlite3_int64(value))
            }
            guard status == SQLITE_OK else { throw failure() }
        }
        return try body(statement)
    }

    private func failure() -> Failure {
        Failure(message: String(cString: sqlite3_errmsg(handle)), code: sqlite3_errcode(handle) & 0xFF)
    }
}

/// A file's device and inode: what identifies it across renames.
struct FileIdentity: Equatable {
    let device: UInt64
    let inode: UInt64

    /// The identity of an open file.
    init(descriptor: Int32, path: String) throws {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw SQLiteConnection.Failure(message: "\(ContainerFailure.system("fstat", path, errno))")
        }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    /// The identity of whatever is at `path` now, without following a link.
    init(path: String) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            throw SQLiteConnection.Failure(message: "\(ContainerFailure.system("lstat", path, errno))")
        }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}
