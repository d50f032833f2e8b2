/// The statement that keeps a worker's leases: every delivery still queued under `owner`
/// (parameter 2) gets a new `lease_until` and `next_attempt_at` (parameter 1). Both stores find those rows through their
/// partial index on `lease_owner` of queued deliveries, so that its cost follows the worker's
/// leases and not the outbox's size: it runs every third of a lease for each worker, on the writer.
///
/// On PostgreSQL the renewal never waits for a row: it skips those another transaction holds,
/// which are the worker's own outcomes being recorded (a delivery being ended needs no longer
/// lease, and one whose recording is rolled back is renewed a third of a lease later). A renewal
/// that waited took its rows in its index's order while the recording took them in its own, and
/// PostgreSQL cancelled one of the two as a deadlock (issue 67): a lost recording sent its
/// deliveries again once their lease ran out.
package enum LeaseStatements {
    /// The renewal in `dialect`: the lease's new end, which is also its deliveries' next attempt
    /// (a claim keeps them out of the due ones until it lapses).
    package static func renew(_ dialect: SQLDialect) -> String {
        let p = dialect.placeholder
        let owned = "lease_owner = \(p(2)) AND status = 'queued'"
        let rows =
            switch dialect {
            case .sqlite: owned
            case .postgres: "id IN (SELECT id FROM deliveries WHERE \(owned)\(dialect.skipLocked))"
            }
        return "UPDATE deliveries SET lease_until = \(p(1)), next_attempt_at = \(p(1)) WHERE \(rows)"
    }
}
