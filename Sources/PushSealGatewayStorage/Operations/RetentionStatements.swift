/// The retention sweep's statements, in either dialect: parameters the cutoff time and the
/// batch's size; the batch's selection skips the rows another instance's sweep holds
/// (``SQLDialect/skipLocked``).
package enum RetentionStatements {
    /// Deletes a batch of deliveries that ended before the cutoff, never a queued one.
    package static func deleteFinishedDeliveries(_ dialect: SQLDialect) -> String {
        let p = dialect.placeholder
        return "DELETE FROM deliveries WHERE id IN (SELECT id FROM deliveries WHERE status <> 'queued' "
            + "AND finished_at < \(p(1)) ORDER BY finished_at LIMIT \(p(2))\(dialect.skipLocked)) RETURNING id"
    }

    /// Deletes a batch of pushes accepted before the cutoff that have no delivery left.
    package static func deleteEmptyPushes(_ dialect: SQLDialect) -> String {
        let p = dialect.placeholder
        return "DELETE FROM pushes WHERE id IN (SELECT p.id FROM pushes AS p WHERE p.accepted_at < \(p(1)) "
            + "AND NOT EXISTS (SELECT 1 FROM deliveries AS d WHERE d.push_id = p.id) "
            + "ORDER BY p.accepted_at LIMIT \(p(2))\(dialect.skipLocked)) RETURNING id"
    }
}
