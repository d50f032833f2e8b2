/// The statement that keeps a worker's leases: every delivery still queued under `owner`
/// (parameter 2) gets a new `lease_until` and `next_attempt_at` (parameter 1). Both stores find those rows through their
/// partial index on `lease_owner` of queued deliveries, so that its cost follows the worker's
/// leases and not the outbox's size: it runs every third of a lease for each worker, on the writer.
package enum LeaseStatements {
    /// The renewal in `dialect`: the lease's new end, which is also its deliveries' next attempt
    /// (a claim keeps them out of the due ones until it lapses).
    package static func renew(_ dialect: SQLDialect) -> String {
        let p = dialect.placeholder
        return "UPDATE deliveries SET lease_until = \(p(1)), next_attempt_at = \(p(1)) "
            + "WHERE lease_owner = \(p(2)) AND status = 'queued'"
    }
}
