/// The columns a record is read from, in the order its `SELECT` lists them: a case per column,
/// numbered from 0 in that order, with its SQL. The `SELECT` list is written from the cases and a
/// row is read by case, so that the two cannot drift apart, and no decoder reads `row[11]`.
package protocol StoredColumns: CaseIterable, RawRepresentable where RawValue == Int {
    /// The column's SQL in the `SELECT` list: its name, or an expression.
    var sql: String { get }
}

extension StoredColumns {
    /// The `SELECT` list: every column's SQL, in order, separated by commas.
    package static var list: String { allCases.map(\.sql).joined(separator: ", ") }
}

/// A row of a statement that selected ``StoredColumns``' list, read by column.
package struct StoredRow<Columns: StoredColumns> {
    private let values: [DatabaseValue]

    /// The row `values`, as the statement returned them.
    package init(_ values: [DatabaseValue]) { self.values = values }

    /// The value of `column`; `null` when the row is shorter than the list.
    package subscript(_ column: Columns) -> DatabaseValue {
        column.rawValue < values.count ? values[column.rawValue] : .null
    }
}
