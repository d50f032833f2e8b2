#if canImport(CLibPQ)
    internal import Foundation

    /// A bounded pool of PostgreSQL connections for one gateway instance. A caller waits at most
    /// ``acquireTimeout`` for a connection; past that, or when the database cannot be reached,
    /// it gets ``Unavailable`` (the API answers 503) instead of queueing without bound. A
    /// connection that broke is dropped, and a new one is opened on the next demand, so the
    /// gateway recovers by itself when the database returns.
    package final class PostgresPool: Sendable {
        /// The database could not serve the call: no connection within the timeout, or none could
        /// be opened.
        package struct Unavailable: StoreFailure, CustomStringConvertible {
            /// Why.
            package let description: String
            /// Unreachable: no connection could be made, or it was lost; busy: every connection
            /// stayed taken.
            package var cause = StoreFailureCause.unreachable

            /// Always: a connection may be had again.
            package var isTransient: Bool { true }
        }

        /// How long a caller waits for a free connection.
        package static let acquireTimeout: Double = 2
        /// How long a write may run before the pool calls it stalled: PostgreSQL's own
        /// `statement_timeout`, past which it cancels a statement that runs (a commit that waits on
        /// a disk that does not answer, it does not).
        package static let stallAfter = Duration.milliseconds(PostgresConnection.statementTimeoutMilliseconds)

        /// Follows the pool's writes: whether the database can write now.
        package let writes = WriteHealthTracker(stallAfter: stallAfter)

        private let url: String
        private let passwordFile: String?
        private let size: Int
        /// Guards `idle` and `open`, and wakes a caller waiting for a connection.
        private let condition = NSCondition()
        nonisolated(unsafe) private var idle: [PostgresConnection] = []
        /// Connections handed out or idle.
        nonisolated(unsafe) private var open = 0

        /// A pool of at most `size` connections to `url`.
        package init(url: String, passwordFile: String?, size: Int) {
            self.url = url
            self.passwordFile = passwordFile
            self.size = size
        }

        /// Opens a connection outside the pool (the notification listener's own).
        package func connect() throws -> PostgresConnection {
            do {
                return try PostgresConnection(
                    url: url, passwordFile: passwordFile, timeoutSeconds: Int(Self.acquireTimeout))
            } catch {
                throw Unavailable(description: "the database cannot be reached: \(error)")
            }
        }

        /// Runs `body` with a connection of the pool; unless it only reads (`writing` false), its
        /// outcome is followed by ``writes``.
        @discardableResult
        package func withConnection<Result>(writing: Bool = true, _ body: (PostgresConnection) throws -> Result)
            throws -> Result
        {
            guard writing else { return try withAnyConnection(body) }
            let changed = RowsChanged()
            return try writes.following(
                {
                    try withAnyConnection { connection in
                        let before = connection.rowsChanged
                        defer { changed.count = connection.rowsChanged - before }
                        return try body(connection)
                    }
                }, changed: { changed.count > 0 })
        }

        /// The rows a followed write changed, carried out of its connection's call.
        private final class RowsChanged {
            var count = 0
        }

        /// Runs `body` with a connection of the pool, dropping one that broke.
        private func withAnyConnection<Result>(_ body: (PostgresConnection) throws -> Result) throws -> Result {
            let connection = try acquire()
            do {
                let result = try body(connection)
                release(connection)
                return result
            } catch let failure as PostgresConnection.Failure where failure.connectionLost || !connection.isOpen {
                release(nil)
                throw Unavailable(description: "the database connection was lost: \(failure)")
            } catch {
                release(connection)
                throw error
            }
        }

        /// Runs `body` in one transaction, committed when it returns and rolled back when it throws.
        @discardableResult
        package func transaction<Result>(writing: Bool = true, _ body: (PostgresConnection) throws -> Result) throws
            -> Result
        {
            try withConnection(writing: writing) { connection in
                try connection.execute("BEGIN")
                do {
                    let result = try body(connection)
                    try connection.execute("COMMIT")
                    return result
                } catch {
                    if connection.isOpen { _ = try? connection.execute("ROLLBACK") }
                    throw error
                }
            }
        }

        /// A free connection: an idle one, a new one while the pool has room, or, after waiting
        /// at most ``acquireTimeout``, ``Unavailable``.
        private func acquire() throws -> PostgresConnection {
            let deadline = Date().addingTimeInterval(Self.acquireTimeout)
            condition.lock()
            while true {
                if let connection = idle.popLast() {
                    condition.unlock()
                    if connection.isOpen { return connection }
                    release(nil)
                    condition.lock()
                    continue
                }
                if open < size {
                    open += 1
                    condition.unlock()
                    do {
                        return try connect()
                    } catch {
                        release(nil)
                        throw error
                    }
                }
                guard condition.wait(until: deadline) else {
                    condition.unlock()
                    throw Unavailable(
                        description:
                            "no database connection was free within \(Self.acquireTimeout) s (\(size) in the pool)",
                        cause: .busy)
                }
            }
        }

        /// Returns `connection` to the pool, or gives up its place when it is nil (broken), and
        /// wakes one waiting caller.
        private func release(_ connection: PostgresConnection?) {
            condition.lock()
            if let connection { idle.append(connection) } else { open -= 1 }
            condition.signal()
            condition.unlock()
        }
    }
#endif
