/// What a store's migration did: the schema versions before and after.
struct SchemaChange: Sendable, Equatable, CustomStringConvertible {
    /// The version found (0 for a new, empty database).
    let from: Int
    /// The version now: the gateway's.
    let to: Int

    /// `created at schema 3`, `upgraded from schema 1 to 3`, or `is at schema 3 already`.
    var description: String {
        if from == to { return "is at schema \(to) already" }
        return from == 0 ? "created at schema \(to)" : "upgraded from schema \(from) to \(to)"
    }
}
