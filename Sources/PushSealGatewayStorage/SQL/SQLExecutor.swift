/// How the SQL the two stores share reaches a database: its dialect, and how it runs a statement
/// alone or several in one transaction. Each aggregate's store (``AccessTokenStore``,
/// ``DeviceStore``, ``OutboxStore``, ``RelayInboxStore``, ``WebhookStore``, ``OperationsStore``)
/// is written once over it; a database implements only what it does differently.
package protocol SQLExecutor: Sendable {
    /// How this database writes parameters and skips locked rows.
    var dialect: SQLDialect { get }
    /// Runs one statement that only reads (SQLite: on a reader, beside the one writer).
    func read(_ statement: String, _ parameters: [DatabaseValue]) throws -> [[DatabaseValue]]
    /// Runs one statement that writes, a transaction of its own; its rows (`RETURNING`).
    @discardableResult
    func write(_ statement: String, _ parameters: [DatabaseValue]) throws -> [[DatabaseValue]]
    /// Runs `body`'s statements in one write transaction: all of them, or none if it throws. The
    /// body may run on another thread than the caller's (SQLite's writer), and may still be held
    /// there after the call gave up waiting for a commit that does not end: it keeps what it
    /// captures, and leaves nothing of the caller's to write.
    func transaction<Result>(_ body: @escaping (StatementRunner) throws -> Result) throws -> Result
    /// Runs `body`'s statements in one transaction that only reads: one snapshot.
    func readTransaction<Result>(_ body: (StatementRunner) throws -> Result) throws -> Result
}

extension SQLExecutor {
    /// The marker of the `n`-th parameter, in this database's dialect.
    package func placeholder(_ n: Int) -> String { dialect.placeholder(n) }
}
