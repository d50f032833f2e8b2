/// One step of a store's schema: its number (the schema a database is at once it ran) and its
/// SQL, run in one transaction with the record of the number.
package struct SchemaMigration: Sendable {
    /// The schema this step brings a database to.
    package let number: Int
    /// The statements.
    package let sql: String

    /// Step `number`, running `sql`.
    package init(_ number: Int, _ sql: String) {
        self.number = number
        self.sql = sql
    }
}
