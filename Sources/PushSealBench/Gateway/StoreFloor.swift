#if canImport(CSQLite) && canImport(CLibPQ)
    internal import CSQLite
    internal import CLibPQ
    import Glibc
    import PushSealBenchStatistics

    /// What the gateway's accepts are judged by: a bare loop that inserts the rows one accept
    /// stores (a `pushes` row and its `deliveries` rows) and commits, with the gateway's
    /// durability, into the gateway's own schema, and nothing else: no HTTP, no sealing, no
    /// reads. The rows are copied from the gateway's database after a run, each delivery made
    /// queued again with `body` set to a sealed payload of the bench's (the gateway empties an
    /// ended delivery's body), so the floor writes what the gateway wrote.
    enum StoreFloor {
        /// A floor's rate, and how long its slowest transactions took (BEGIN to COMMIT): the tail
        /// the store itself has, whatever runs above it.
        struct Rate {
            /// Pushes stored per second.
            let pushesPerSecond: Double
            /// The 99th percentile of a transaction's time, in seconds.
            let p99Seconds: Double

            init(pushesPerSecond: Double, transactions: [Double]) {
                self.pushesPerSecond = pushesPerSecond
                p99Seconds = Spread(transactions).quantile(0.99)
            }
        }

        /// The pushes per second stored by one SQLite connection (WAL, `synchronous = FULL`, foreign
        /// keys on, as the gateway opens it) into a new file with the schema of the gateway's
        /// database at `source`: `pushes` pushes of `deliveriesPerPush` deliveries each,
        /// `pushesPerCommit` to a transaction. Nil when it cannot run.
        static func sqlite(
            source: String, directory: String, body: [UInt8], pushes: Int, deliveriesPerPush: Int,
            pushesPerCommit: Int
        ) -> Rate? {
            let path = "\(directory)/floor-\(pushesPerCommit)-\(deliveriesPerPush).db"
            unlink(path)
            var database: OpaquePointer?
            guard sqlite3_open(path, &database) == SQLITE_OK, let database else { return nil }
            defer {
                sqlite3_close(database)
                unlink(path)
            }
            func execute(_ sql: String) -> Bool { sqlite3_exec(database, sql, nil, nil, nil) == SQLITE_OK }
            guard execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON"),
                execute("ATTACH DATABASE 'file:\(source)?mode=ro' AS gateway")
            else { return nil }
            var schema: [String] = []
            guard
                each(
                    database,
                    "SELECT sql FROM gateway.sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
                        + "ORDER BY type DESC",
                    { statement in schema.append(String(cString: sqlite3_column_text(statement, 0))) })
            else { return nil }
            for statement in schema { guard execute(statement) else { return nil } }
            // The gateway's rows, as values to bind again.
            guard let push = sampleRow(database, "SELECT * FROM gateway.pushes LIMIT 1"),
                let delivery = sampleRow(
                    database, "SELECT * FROM gateway.deliveries WHERE push_id = '\(push.text("id"))' LIMIT 1")
            else { return nil }
            guard execute("DETACH DATABASE gateway") else { return nil }
            let insertPush = prepare(database, push.insert(into: "pushes", leaving: []))
            let insertDelivery = prepare(database, delivery.insert(into: "deliveries", leaving: ["id"]))
            guard let insertPush, let insertDelivery else { return nil }
            defer {
                sqlite3_finalize(insertPush)
                sqlite3_finalize(insertDelivery)
            }
            return measure(pushes: pushes, pushesPerCommit: pushesPerCommit) { ids in
                guard execute("BEGIN IMMEDIATE") else { return false }
                for id in ids {
                    guard push.run(insertPush, overriding: ["id": .text(id)]) else { return false }
                    for _ in 0..<deliveriesPerPush {
                        let overrides: [String: SampleRow.Value] = [
                            "push_id": .text(id), "status": .text("queued"), "body": .blob(body), "finished_at": .null,
                            "apns_id": .null, "reason": .null, "attempts": .integer(0), "lease_owner": .null,
                            "lease_until": .null,
                        ]
                        guard delivery.run(insertDelivery, overriding: overrides) else { return false }
                    }
                }
                return execute("COMMIT")
            }
        }

        /// The pushes per second stored through libpq over one connection into copies of the
        /// gateway's tables (`LIKE … INCLUDING ALL`, then their storage parameters; from schema 8, no
        /// foreign key) in its database at `url`, with its rows, `pushesPerCommit` to a transaction,
        /// PostgreSQL's default durability (`synchronous_commit = on`): each push one prepared
        /// statement (the push and its deliveries), as the gateway stores it. Nil when it cannot run.
        static func postgres(
            url: String, body: [UInt8], pushes: Int, deliveriesPerPush: Int, pushesPerCommit: Int
        ) -> Rate? {
            guard let connection = PQconnectdb(url) else { return nil }
            defer { PQfinish(connection) }
            guard PQstatus(connection) == CONNECTION_OK else { return nil }
            // Statements with parameters are prepared once, as the gateway's connections do.
            var prepared: Set<String> = []
            func execute(_ sql: String, _ parameters: [String?] = []) -> OpaquePointer? {
                let copies = parameters.map { $0.map { strdup($0) } ?? nil }
                defer { copies.forEach { free($0) } }
                let values = copies.map { $0.map { UnsafePointer($0) } }
                let name = "floor_\(sql.hashValue.magnitude)"
                if !parameters.isEmpty && !prepared.contains(sql) {
                    let made = PQprepare(connection, name, sql, Int32(parameters.count), nil)
                    defer { PQclear(made) }
                    guard PQresultStatus(made) == PGRES_COMMAND_OK else { return nil }
                    prepared.insert(sql)
                }
                let result =
                    parameters.isEmpty
                    ? PQexec(connection, sql)
                    : PQexecPrepared(connection, name, Int32(parameters.count), values, nil, nil, 0)
                let status = PQresultStatus(result)
                guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
                    PQclear(result)
                    return nil
                }
                return result
            }
            let suffix = "\(pushesPerCommit)_\(deliveriesPerPush)"
            for sql in [
                // The drop of a table not there yet is no news: no NOTICE among the bench's lines.
                "SET client_min_messages = warning",
                "DROP TABLE IF EXISTS floor_deliveries_\(suffix), floor_pushes_\(suffix)",
                "CREATE TABLE floor_pushes_\(suffix) (LIKE pushes INCLUDING ALL)",
                // As the gateway's schema 8: no foreign key from a delivery to its push.
                "CREATE TABLE floor_deliveries_\(suffix) (LIKE deliveries INCLUDING ALL)",
                // LIKE copies no storage parameter, and schema 9's TOAST target keeps a body in its row.
                """
                DO $$ DECLARE options text; BEGIN
                    SELECT array_to_string(reloptions, ', ') INTO options FROM pg_class WHERE oid = 'deliveries'::regclass;
                    IF options IS NOT NULL THEN
                        EXECUTE format('ALTER TABLE floor_deliveries_\(suffix) SET (%s)', options);
                    END IF;
                END $$
                """,
            ] {
                guard let result = execute(sql) else { return nil }
                PQclear(result)
            }
            func sample(_ sql: String) -> [(String, String?)]? {
                guard let result = execute(sql) else { return nil }
                defer { PQclear(result) }
                guard PQntuples(result) == 1 else { return nil }
                return (0..<PQnfields(result)).map { column in
                    (
                        String(cString: PQfname(result, column)),
                        PQgetisnull(result, 0, column) == 1 ? nil : String(cString: PQgetvalue(result, 0, column))
                    )
                }
            }
            guard let push = sample("SELECT * FROM pushes LIMIT 1"),
                let pushID = push.first(where: { $0.0 == "id" })?.1,
                let delivery = sample(
                    "SELECT * FROM deliveries WHERE push_id = '\(pushID)' LIMIT 1")?.filter({ $0.0 != "id" })
            else { return nil }
            let hexBody = "\\x" + body.map { String($0 >> 4, radix: 16) + String($0 & 15, radix: 16) }.joined()
            let deliveryOverrides: [String: String?] = [
                "status": "queued", "body": hexBody, "finished_at": nil, "apns_id": nil, "reason": nil, "attempts": "0",
                "lease_owner": nil, "lease_until": nil,
            ]
            // As the gateway stores a push: one statement, the push and its deliveries (rows of
            // VALUES), its own transaction when it is alone in its commit.
            let pushColumns = push.map(\.0).joined(separator: ", ")
            let pushMarkers = (1...push.count).map { "$\($0)" }.joined(separator: ", ")
            let deliveryRows = (0..<deliveriesPerPush).map { row in
                "(" + (1...delivery.count).map { "$\(push.count + row * delivery.count + $0)" }.joined(separator: ", ")
                    + ")"
            }
            let insertPush =
                "WITH pushed AS (INSERT INTO floor_pushes_\(suffix) (\(pushColumns)) VALUES (\(pushMarkers))) "
                + "INSERT INTO floor_deliveries_\(suffix) (\(delivery.map(\.0).joined(separator: ", "))) "
                + "VALUES \(deliveryRows.joined(separator: ", "))"
            return measure(pushes: pushes, pushesPerCommit: pushesPerCommit) { ids in
                if ids.count > 1 {
                    guard let begun = execute("BEGIN") else { return false }
                    PQclear(begun)
                }
                for id in ids {
                    let deliveryValues = delivery.map { name, value in
                        name == "push_id" ? id : deliveryOverrides[name] ?? value
                    }
                    let values =
                        push.map { $0.0 == "id" ? id : $0.1 }
                        + Array(repeating: deliveryValues, count: deliveriesPerPush).joined()
                    guard let pushed = execute(insertPush, values) else { return false }
                    PQclear(pushed)
                }
                if ids.count > 1 {
                    guard let committed = execute("COMMIT") else { return false }
                    PQclear(committed)
                }
                return true
            }
        }

        /// Hands `commit` the ids of the next `pushesPerCommit` pushes (fewer at the end) until
        /// `pushes` are made, timing each call; the rate and the calls' p99, nil when one fails.
        private static func measure(pushes: Int, pushesPerCommit: Int, _ commit: ([String]) -> Bool) -> Rate? {
            let clock = ContinuousClock()
            let start = clock.now
            var transactions: [Double] = []
            var made = 0
            while made < pushes {
                let ids = (made..<min(made + pushesPerCommit, pushes)).map { "floor-\($0)" }
                made += ids.count
                let began = clock.now
                guard commit(ids) else { return nil }
                transactions.append(Stopwatch.seconds(since: began, clock))
            }
            return Rate(
                pushesPerSecond: Double(pushes) / Stopwatch.seconds(since: start, clock), transactions: transactions)
        }

        /// Runs `sql` on `database`, calling `row` for each row; false on failure.
        private static func each(_ database: OpaquePointer, _ sql: String, _ row: (OpaquePointer) -> Void) -> Bool {
            guard let statement = prepare(database, sql) else { return false }
            defer { sqlite3_finalize(statement) }
            while true {
                let step = sqlite3_step(statement)
                if step == SQLITE_DONE { return true }
                guard step == SQLITE_ROW else { return false }
                row(statement)
            }
        }

        private static func prepare(_ database: OpaquePointer, _ sql: String) -> OpaquePointer? {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK else { return nil }
            return statement
        }

        /// The first row `sql` returns, by column name.
        private static func sampleRow(_ database: OpaquePointer, _ sql: String) -> SampleRow? {
            var found: SampleRow?
            let ran = each(database, sql) { statement in
                guard found == nil else { return }
                found = SampleRow(
                    columns: (0..<sqlite3_column_count(statement)).map { index in
                        let name = String(cString: sqlite3_column_name(statement, index))
                        switch sqlite3_column_type(statement, index) {
                        case SQLITE_INTEGER: return (name, .integer(sqlite3_column_int64(statement, index)))
                        case SQLITE_TEXT: return (name, .text(String(cString: sqlite3_column_text(statement, index))))
                        case SQLITE_BLOB:
                            let count = Int(sqlite3_column_bytes(statement, index))
                            let bytes = sqlite3_column_blob(statement, index)
                            return (name, .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count))))
                        default: return (name, .null)
                        }
                    })
            }
            return ran ? found : nil
        }

        /// One row of the gateway's, to insert again with some columns changed.
        private struct SampleRow {
            enum Value {
                case null
                case integer(Int64)
                case text(String)
                case blob([UInt8])
            }

            let columns: [(name: String, value: Value)]

            /// The text of column `name`, or "".
            func text(_ name: String) -> String {
                if case .text(let text) = columns.first(where: { $0.name == name })?.value { return text }
                return ""
            }

            /// An INSERT of every column but those `leaving`.
            func insert(into table: String, leaving: Set<String>) -> String {
                let names = columns.map(\.name).filter { !leaving.contains($0) }
                return "INSERT INTO \(table) (\(names.joined(separator: ", "))) VALUES "
                    + "(\((1...names.count).map { "?\($0)" }.joined(separator: ", ")))"
            }

            /// Binds the row (with `overrides` by column name; a column the insert leaves out is
            /// skipped) to `statement` and runs it; false on failure.
            func run(_ statement: OpaquePointer, overriding overrides: [String: Value]) -> Bool {
                sqlite3_reset(statement)
                var position: Int32 = 0
                for column in columns {
                    if column.name == "id" && overrides["id"] == nil { continue }
                    position += 1
                    let status: Int32
                    switch overrides[column.name] ?? column.value {
                    case .null: status = sqlite3_bind_null(statement, position)
                    case .integer(let value): status = sqlite3_bind_int64(statement, position, value)
                    case .text(let value): status = sqlite3_bind_text(statement, position, value, -1, transient)
                    case .blob(let value):
                        status = value.withUnsafeBytes {
                            sqlite3_bind_blob(statement, position, $0.baseAddress, Int32($0.count), transient)
                        }
                    }
                    guard status == SQLITE_OK else { return false }
                }
                return sqlite3_step(statement) == SQLITE_DONE
            }
        }
    }

    /// SQLite's `SQLITE_TRANSIENT`: copy the bound value now.
    private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
#endif
