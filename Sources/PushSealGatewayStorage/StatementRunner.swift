/// Statements run in one open transaction of either store: how it writes the n-th parameter's
/// marker (`?n` for SQLite, `$n` for PostgreSQL) and how it runs a statement, so that logic
/// spanning several statements is written once for both.
package struct StatementRunner {
    /// The marker of the n-th parameter.
    package let placeholder: (Int) -> String
    /// Runs a statement with its parameters; its rows.
    package let run: (String, [DatabaseValue]) throws -> [[DatabaseValue]]

    /// A value of these members.
    package init(
        placeholder: @escaping (Int) -> String, run: @escaping (String, [DatabaseValue]) throws -> [[DatabaseValue]]
    ) {
        self.placeholder = placeholder
        self.run = run
    }

    /// Runs `statement` with `parameters`; its rows.
    @discardableResult
    package func callAsFunction(_ statement: String, _ parameters: [DatabaseValue] = []) throws -> [[DatabaseValue]] {
        try run(statement, parameters)
    }

    /// `count` markers from the `first`, separated by commas.
    package func markers(_ count: Int, from first: Int = 1) -> String {
        (first..<first + count).map(placeholder).joined(separator: ", ")
    }
}
