#if canImport(CLibPQ)
    internal import CLibPQ
    internal import PushSealCore

    #if canImport(Glibc)
        import Glibc
    #endif

    /// One connection to PostgreSQL through libpq, used by one caller at a time: the pool hands it
    /// over under its lock, which is what makes it Sendable. Statements always send their values
    /// as parameters, never spliced into SQL; integers and text go as text, blobs as binary, and
    /// results come back in the binary format (``PostgresBinaryColumn``), typed by column. Each
    /// statement is prepared once per connection (a named server-side statement), so that it is
    /// parsed once.
    package final class PostgresConnection: @unchecked Sendable {
        /// A failure, with PostgreSQL's message (never a parameter's value); `connectionLost`
        /// when the connection itself is gone, so that the pool drops it.
        package struct Failure: StoreFailure, CustomStringConvertible {
            /// What libpq or the server said.
            package let description: String
            /// True when the connection no longer works.
            package let connectionLost: Bool
            /// The server's SQLSTATE, when the server answered with an error.
            package var sqlState: String? = nil

            /// The SQLSTATEs of a transaction the server cancelled, or that waited too long, and
            /// may pass when run again: a serialization failure (40001), a deadlock (40P01), a
            /// lock not available within `lock_timeout` (55P03), a statement cancelled by
            /// `statement_timeout` (57014), a server shutting down (57P01 to 57P03) or out of
            /// connections (53300).
            static let transientStates: Set<String> = [
                "40001", "40P01", "55P03", "57014", "57P01", "57P02", "57P03", "53300",
            ]

            /// A lost connection, any connection exception (class 08) and ``transientStates``.
            package var isTransient: Bool {
                connectionLost || sqlState.map { $0.hasPrefix("08") || Self.transientStates.contains($0) } ?? false
            }

            /// What the SQLSTATE says: a lost connection or a connection exception is unreachable,
            /// the transient states busy, `disk_full` (53100) full, `io_error` (58030) an I/O error,
            /// `data_corrupted` and `index_corrupted` (XX001, XX002) corrupt, and
            /// `read_only_sql_transaction` (25006) read-only.
            package var cause: StoreFailureCause {
                if connectionLost || sqlState?.hasPrefix("08") == true { return .unreachable }
                switch sqlState {
                case let state? where Self.transientStates.contains(state): return .busy
                case "53100"?: return .full
                case "58030"?: return .io
                case "XX001"?, "XX002"?: return .corrupt
                case "25006"?: return .readOnly
                default: return .other
                }
            }
        }

        private let handle: OpaquePointer
        /// The statements prepared on this connection, by their SQL: their server-side name and
        /// when they were last used (``uses`` at the time).
        private var prepared: [String: (name: String, lastUse: Int)] = [:]
        /// Rows the statements run on this connection inserted, updated or deleted so far
        /// (PostgreSQL's command tag), whether or not their transaction committed.
        package private(set) var rowsChanged = 0
        /// Statements run so far, and statements prepared so far (each gets a name of its own).
        private var uses = 0
        private var preparations = 0

        /// The most statements a connection keeps prepared; past it, the least recently used is
        /// deallocated. The gateway runs a few dozen statements, whose plans then cost nothing.
        package static let preparedStatements = 64

        /// How long a statement waits for a lock another session holds (a table locked by hand,
        /// a long transaction) before it fails: the API then answers 503 within about 2 s, as on
        /// SQLite, instead of waiting for as long as the lock is held.
        package static let lockTimeoutMilliseconds = 2_000
        /// How long one statement may run in all.
        package static let statementTimeoutMilliseconds = 10_000
        /// How long sent data may stay unacknowledged before the connection counts as dead
        /// (a server gone without a word), and the keepalive probes that find an idle one.
        package static let tcpUserTimeoutMilliseconds = 10_000

        /// Connects to `url` (a `postgres://` URL without a password), reading the password, if
        /// one is needed, from `passwordFile` (PostgreSQL's `.pgpass` format) or `PGPASSFILE`.
        /// Gives up after `timeoutSeconds`. Statements wait at most ``lockTimeoutMilliseconds``
        /// for a lock and run at most ``statementTimeoutMilliseconds``; a server that stops
        /// answering is given up after ``tcpUserTimeoutMilliseconds``.
        package init(url: String, passwordFile: String?, timeoutSeconds: Int) throws {
            // Notices ("relation already exists, skipping") would go to standard error, outside the log.
            let options =
                "-c client_min_messages=warning -c lock_timeout=\(Self.lockTimeoutMilliseconds) "
                + "-c statement_timeout=\(Self.statementTimeoutMilliseconds)"
            var keywords = [
                "dbname", "connect_timeout", "application_name", "options", "keepalives", "keepalives_idle",
                "keepalives_interval", "keepalives_count", "tcp_user_timeout",
            ]
            var values = [
                url, String(max(2, timeoutSeconds)), "pushseal-gateway", options, "1", "10", "3", "3",
                String(Self.tcpUserTimeoutMilliseconds),
            ]
            if let passwordFile {
                keywords.append("passfile")
                values.append(passwordFile)
            }
            let connection = Self.withCStrings(keywords) { keywords in
                Self.withCStrings(values) { values in PQconnectdbParams(keywords, values, 1) }
            }
            guard let connection else { throw Failure(description: "out of memory", connectionLost: true) }
            guard PQstatus(connection) == CONNECTION_OK else {
                let message = Self.message(PQerrorMessage(connection))
                PQfinish(connection)
                throw Failure(description: message, connectionLost: true)
            }
            handle = connection
        }

        deinit { PQfinish(handle) }

        /// True while the connection works.
        package var isOpen: Bool { PQstatus(handle) == CONNECTION_OK }

        /// Runs SQL without parameters, possibly several statements (migrations, `LISTEN`).
        package func execute(_ sql: String) throws {
            guard let result = PQexec(handle, sql) else { throw failure() }
            defer { PQclear(result) }
            let status = PQresultStatus(result)
            guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else { throw failure(result) }
        }

        /// Runs one statement with `parameters` ($1, $2, …); the rows it returns.
        @discardableResult
        package func query(_ sql: String, _ parameters: [DatabaseValue] = []) throws -> [[DatabaseValue]] {
            let name = try statementName(sql, parameterCount: parameters.count)
            let result = Self.withParameters(parameters) { values, lengths, formats in
                PQexecPrepared(handle, name, Int32(parameters.count), values, lengths, formats, 1)
            }
            guard let result else { throw failure() }
            defer { PQclear(result) }
            let status = PQresultStatus(result)
            guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else { throw failure(result) }
            rowsChanged += Self.rowsChanged(by: result)
            return try (0..<PQntuples(result)).map { row in
                try (0..<PQnfields(result)).map { column in try Self.value(result, row, column) }
            }
        }

        /// The server-side name of `sql` prepared on this connection: prepared (parsed, its
        /// parameters typed) the first time, so that PostgreSQL plans it again only when its
        /// parameters call for it. Past ``preparedStatements``, the least recently used goes.
        private func statementName(_ sql: String, parameterCount: Int) throws -> String {
            uses += 1
            // One lookup, so the text is hashed once: the push statement runs to kilobytes.
            if let known = prepared.index(forKey: sql) {
                prepared.values[known].lastUse = uses
                return prepared.values[known].name
            }
            if prepared.count >= Self.preparedStatements,
                let oldest = prepared.min(by: { $0.value.lastUse < $1.value.lastUse })
            {
                prepared[oldest.key] = nil
                // A failure leaves the name taken on the server, never reused: names only grow.
                PQclear(PQexec(handle, "DEALLOCATE \(oldest.value.name)"))
            }
            preparations += 1
            let name = "pushseal_\(preparations)"
            guard let result = PQprepare(handle, name, sql, Int32(parameterCount), nil) else { throw failure() }
            defer { PQclear(result) }
            guard PQresultStatus(result) == PGRES_COMMAND_OK else { throw failure(result) }
            prepared[sql] = (name, uses)
            return name
        }

        /// Waits up to `timeoutMilliseconds` for a `NOTIFY` on a channel this connection listens
        /// to; the payloads of those that came, empty when none did.
        package func waitForNotifications(timeoutMilliseconds: Int32) throws -> [String] {
            let waiting = drainNotifications()
            if !waiting.isEmpty { return waiting }
            var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
            guard descriptor.fd >= 0 else { throw failure() }
            let ready = poll(&descriptor, 1, timeoutMilliseconds)
            guard ready > 0 else { return [] }
            guard PQconsumeInput(handle) == 1 else { throw failure() }
            return drainNotifications()
        }

        private func drainNotifications() -> [String] {
            var payloads: [String] = []
            while let notification = PQnotifies(handle) {
                payloads.append(notification.pointee.extra.map { String(cString: $0) } ?? "")
                PQfreemem(notification)
            }
            return payloads
        }

        private static func value(_ result: OpaquePointer, _ row: Int32, _ column: Int32) throws -> DatabaseValue {
            guard PQgetisnull(result, row, column) == 0, let bytes = PQgetvalue(result, row, column) else {
                return .null
            }
            return try PostgresBinaryColumn.value(
                UnsafeRawBufferPointer(start: bytes, count: Int(PQgetlength(result, row, column))),
                typeOID: PQftype(result, column), column: column)
        }

        private func failure(_ result: OpaquePointer? = nil) -> Failure {
            let message = result.flatMap { PQresultErrorMessage($0) } ?? PQerrorMessage(handle)
            let state = result.flatMap { PQresultErrorField($0, Self.sqlStateField) }.map { String(cString: $0) }
            return Failure(
                description: Self.message(message), connectionLost: PQstatus(handle) != CONNECTION_OK, sqlState: state)
        }

        /// The rows a statement's result says it inserted, updated or deleted (its command tag:
        /// `INSERT 0 3`, `UPDATE 2`, `DELETE 1`); 0 for any other command, a SELECT's rows included.
        private static func rowsChanged(by result: OpaquePointer) -> Int {
            guard let tag = PQcmdStatus(result).map({ String(cString: $0) }),
                ["INSERT ", "UPDATE ", "DELETE ", "MERGE "].contains(where: { tag.hasPrefix($0) })
            else { return 0 }
            return PQcmdTuples(result).flatMap { Int(String(cString: $0)) } ?? 0
        }

        /// libpq's `PG_DIAG_SQLSTATE`, the field of an error result holding its SQLSTATE: the
        /// character `'C'`, a macro Swift does not import.
        private static let sqlStateField = Int32(UInt8(ascii: "C"))

        /// libpq's message on one line.
        private static func message(_ text: UnsafePointer<CChar>?) -> String {
            let message = text.map { String(cString: $0) } ?? "unknown error"
            return message.split(whereSeparator: \.isNewline).joined(separator: " ")
        }

        private static func withCStrings<Result>(
            _ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> Result
        ) -> Result {
            let copies = strings.map { strdup($0) }
            defer { copies.forEach { free($0) } }
            var pointers = copies.map { UnsafePointer($0) } + [nil]
            return pointers.withUnsafeMutableBufferPointer { body($0.baseAddress.map { UnsafePointer($0) }) }
        }

        /// Calls `body` with `parameters` as libpq takes them: a pointer to each value (nil for
        /// NULL), its length and its format (0 text, NUL-terminated; 1 binary). The values are
        /// written one after another into a single buffer, not copied one by one into an
        /// allocation each.
        private static func withParameters<Result>(
            _ parameters: [DatabaseValue],
            _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> Result
        ) -> Result {
            var buffer: [UInt8] = []
            buffer.reserveCapacity(
                parameters.reduce(1) { total, parameter in
                    switch parameter {
                    case .null: total
                    case .integer: total + 21
                    case .text(let value): total + value.utf8.count + 1
                    case .blob(let value): total + value.count
                    }
                })
            var offsets: [Int?] = []
            var lengths: [Int32] = []
            var formats: [Int32] = []
            offsets.reserveCapacity(parameters.count)
            lengths.reserveCapacity(parameters.count)
            formats.reserveCapacity(parameters.count)
            for parameter in parameters {
                let start = buffer.count
                switch parameter {
                case .null:
                    offsets.append(nil)
                    lengths.append(0)
                    formats.append(0)
                    continue
                case .integer(let value):
                    buffer.append(contentsOf: String(value).utf8)
                    buffer.append(0)
                    formats.append(0)
                case .text(let value):
                    buffer.append(contentsOf: value.utf8)
                    buffer.append(0)
                    formats.append(0)
                case .blob(let value):
                    buffer.append(contentsOf: value)
                    formats.append(1)
                }
                offsets.append(start)
                lengths.append(Int32(buffer.count - start))
            }
            // A byte past the values, so that the buffer is never empty: an empty blob's pointer
            // must not be NULL, which would send SQL's NULL.
            buffer.append(0)
            return buffer.withUnsafeBytes { bytes in
                let base = bytes.bindMemory(to: CChar.self).baseAddress
                let pointers: [UnsafePointer<CChar>?] = offsets.map { offset in
                    offset.flatMap { offset in base.map { $0 + offset } }
                }
                return pointers.withUnsafeBufferPointer { values in
                    lengths.withUnsafeBufferPointer { lengths in
                        formats.withUnsafeBufferPointer { formats in
                            body(values.baseAddress, lengths.baseAddress, formats.baseAddress)
                        }
                    }
                }
            }
        }
    }
#endif
