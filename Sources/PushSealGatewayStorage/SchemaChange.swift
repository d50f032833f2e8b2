/// What a store's migration did: the schema versions before and after.
package struct SchemaChange: Sendable, Equatable, CustomStringConvertible {
    /// The version found (0 for a new, empty database).
    package let from: Int
    /// The version now: the gateway's.
    package let to: Int

    /// A value of these members.
    package init(from: Int, to: Int) {
        self.from = from
        self.to = to
    }

    /// `created at schema 3`, `upgraded from schema 1 to 3`, or `is at schema 3 already`.
    package var description: String {
        if from == to { return "is at schema \(to) already" }
        return from == 0 ? "created at schema \(to)" : "upgraded from schema \(from) to \(to)"
    }
}
