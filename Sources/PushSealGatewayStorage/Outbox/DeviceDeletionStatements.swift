/// The statements that end a deleted device's queued deliveries, for `DELETE /v1/devices/{id}`:
/// parameters 1 and 2 are the device's id and app. Both stores find those rows through their
/// partial index on `device_id` and `app` of queued deliveries (`deliveries_queued_by_device`),
/// so that a deletion reads the device's queued deliveries alone, never the outbox and its
/// retained history.
package enum DeviceDeletionStatements {
    /// The ended columns of the device's queued deliveries (for their webhook events), oldest
    /// first, locked in that order on PostgreSQL for the deletion's transaction.
    package static func queued(_ dialect: SQLDialect) -> String {
        let p = dialect.placeholder
        return "SELECT \(OutboxFinish.EndedColumn.list) FROM deliveries WHERE device_id = \(p(1)) AND app = \(p(2)) "
            + "AND status = 'queued' ORDER BY id\(dialect.forUpdate)"
    }

    /// Ends them `unregistered` with the reason (parameter 3), at the time (4), their body emptied
    /// (5) and their leases released.
    package static func end(_ dialect: SQLDialect) -> String {
        let p = dialect.placeholder
        return "UPDATE deliveries SET status = 'unregistered', reason = \(p(3)), finished_at = \(p(4)), "
            + "body = \(p(5)), lease_owner = NULL, lease_until = NULL "
            + "WHERE device_id = \(p(1)) AND app = \(p(2)) AND status = 'queued'"
    }

    /// Deletes the content kept for the device to fetch: its pushes no longer go anywhere
    /// (found through `fetch_objects_by_source`, whose first columns are the app and device).
    package static func fetchObjects(_ dialect: SQLDialect) -> String {
        let p = dialect.placeholder
        return "DELETE FROM fetch_objects WHERE app = \(p(2)) AND device_id = \(p(1))"
    }
}
