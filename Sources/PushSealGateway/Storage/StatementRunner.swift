/// Statements run in one open transaction of either store: how it writes the n-th parameter's
/// marker (`?n` for SQLite, `$n` for PostgreSQL) and how it runs a statement, so that logic
/// spanning several statements is written once for both.
struct StatementRunner {
    /// The marker of the n-th parameter.
    let placeholder: (Int) -> String
    /// Runs a statement with its parameters; its rows.
    let run: (String, [DatabaseValue]) throws -> [[DatabaseValue]]

    /// Runs `statement` with `parameters`; its rows.
    @discardableResult
    func callAsFunction(_ statement: String, _ parameters: [DatabaseValue] = []) throws -> [[DatabaseValue]] {
        try run(statement, parameters)
    }

    /// `count` markers from the `first`, separated by commas.
    func markers(_ count: Int, from first: Int = 1) -> String {
        (first..<first + count).map(placeholder).joined(separator: ", ")
    }
}
