/// Statements run in one open transaction of either store: the database's dialect and how a
/// statement runs, so that logic spanning several statements is written once for both.
package struct StatementRunner {
    /// The database's dialect.
    package let dialect: SQLDialect
    /// Runs a statement with its parameters; its rows.
    package let run: (String, [DatabaseValue]) throws -> [[DatabaseValue]]

    /// A value of these members.
    package init(dialect: SQLDialect, run: @escaping (String, [DatabaseValue]) throws -> [[DatabaseValue]]) {
        self.dialect = dialect
        self.run = run
    }

    /// The marker of the `n`-th parameter.
    package func placeholder(_ n: Int) -> String { dialect.placeholder(n) }

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
