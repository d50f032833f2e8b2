package import PushSealGatewayModel

/// The retention sweep's statements, in either dialect, each over one app's rows: parameters the
/// app, the cutoff time and the batch's size. Each finds its rows through an index led by the app
/// (schema 10), so that one app's retained history is never read to sweep another's, and each
/// batch's selection skips the rows another instance's sweep holds (``SQLDialect/skipLocked``).
package enum RetentionStatements {
    /// Deletes a batch of the app's deliveries that ended before the cutoff, never a queued one.
    package static func deleteFinishedDeliveries(_ dialect: SQLDialect) -> String {
        let p = dialect.placeholder
        return "DELETE FROM deliveries WHERE id IN (SELECT id FROM deliveries WHERE app = \(p(1)) "
            + "AND status <> 'queued' AND finished_at < \(p(2)) ORDER BY finished_at LIMIT \(p(3))"
            + "\(dialect.skipLocked)) RETURNING id"
    }

    /// Deletes a batch of the app's queued deliveries of one kind (parameter 4) due before the
    /// cutoff: those of an app (or of its Web Push) that no instance serves any more, which no
    /// worker claims (a claim or a retry moves a served delivery past the cutoff long before).
    package static func deleteAbandonedDeliveries(_ dialect: SQLDialect) -> String {
        let p = dialect.placeholder
        return "DELETE FROM deliveries WHERE id IN (SELECT id FROM deliveries WHERE kind = \(p(4)) "
            + "AND app = \(p(1)) AND status = 'queued' AND next_attempt_at < \(p(2)) ORDER BY next_attempt_at "
            + "LIMIT \(p(3))\(dialect.skipLocked)) RETURNING id"
    }

    /// Deletes a batch of the app's pushes accepted before the cutoff that have no delivery left.
    package static func deleteEmptyPushes(_ dialect: SQLDialect) -> String {
        let p = dialect.placeholder
        return "DELETE FROM pushes WHERE id IN (SELECT p.id FROM pushes AS p WHERE p.app = \(p(1)) "
            + "AND p.accepted_at < \(p(2)) AND NOT EXISTS (SELECT 1 FROM deliveries AS d WHERE d.push_id = p.id) "
            + "ORDER BY p.accepted_at LIMIT \(p(3))\(dialect.skipLocked)) RETURNING id"
    }

    /// Deletes a batch of the app's fetch objects that expired before the time given.
    package static func deleteExpiredFetchObjects(_ dialect: SQLDialect) -> String {
        let p = dialect.placeholder
        return "DELETE FROM fetch_objects WHERE id IN (SELECT id FROM fetch_objects WHERE app = \(p(1)) "
            + "AND expires_at < \(p(2)) ORDER BY expires_at LIMIT \(p(3))\(dialect.skipLocked)) RETURNING id"
    }

    /// Deletes a batch of the app's fetch objects stored before the cutoff, whatever their expiry
    /// (the app's retention shrank after they were stored).
    package static func deleteOldFetchObjects(_ dialect: SQLDialect) -> String {
        let p = dialect.placeholder
        return "DELETE FROM fetch_objects WHERE id IN (SELECT id FROM fetch_objects WHERE app = \(p(1)) "
            + "AND created_at < \(p(2)) ORDER BY created_at LIMIT \(p(3))\(dialect.skipLocked)) RETURNING id"
    }

    /// The parameters of each statement: `app`, `cutoff` and `limit`, in that order.
    package static func parameters(_ app: AppID, before cutoff: Int64, limit: Int) -> [DatabaseValue] {
        [.text(app.name), .integer(cutoff), .integer(Int64(limit))]
    }
}
