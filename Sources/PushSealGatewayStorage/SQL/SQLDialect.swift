/// What the gateway's SQL writes differently on each database; everything else is written once.
package enum SQLDialect: Sendable {
    /// SQLite: parameters `?1`, `?2`…; one writer, so nothing to skip.
    case sqlite
    /// PostgreSQL: parameters `$1`, `$2`…; a batch others may be taking skips their rows.
    case postgres

    /// The marker of the `n`-th parameter (from 1).
    package func placeholder(_ n: Int) -> String {
        switch self {
        case .sqlite: "?\(n)"
        case .postgres: "$\(n)"
        }
    }

    /// What follows the selection of a batch that instances working at once must split (a
    /// retention batch, a webhook claim): PostgreSQL's ` FOR UPDATE SKIP LOCKED`, so that they take
    /// different rows and none waits; nothing on SQLite.
    package var skipLocked: String {
        switch self {
        case .sqlite: ""
        case .postgres: " FOR UPDATE SKIP LOCKED"
        }
    }

    /// A `LIMIT` that limits nothing, for a selection that only skips rows (`OFFSET`): SQLite has
    /// no `OFFSET` without a `LIMIT`, and PostgreSQL no negative one.
    package var noLimit: String {
        switch self {
        case .sqlite: "-1"
        case .postgres: "ALL"
        }
    }

    /// What follows the selection of a row that the same transaction then updates from what it
    /// read: PostgreSQL's ` FOR UPDATE`, so that two transactions at once update it one after the
    /// other; nothing on SQLite, whose one writer does that already.
    package var forUpdate: String {
        switch self {
        case .sqlite: ""
        case .postgres: " FOR UPDATE"
        }
    }
}
