package import PushSealGatewayModel

extension DisplayCount {
    /// The statement counting one app's (parameter 2) deliveries sent since parameter 1 that carry
    /// receipts, by display and reason. It reads through `deliveries_finished`, the index of
    /// ended deliveries by app and time, as the last hour's outcomes do.
    package static func query(_ dialect: SQLDialect) -> String {
        let p = dialect.placeholder
        return "SELECT display_outcome, display_reason, count(*) FROM deliveries WHERE app = \(p(2)) "
            + "AND status <> 'queued' AND finished_at >= \(p(1)) AND status = 'sent' AND receipt_id IS NOT NULL "
            + "GROUP BY display_outcome, display_reason"
    }

    /// A row of ``query(_:)``.
    package init(row: [DatabaseValue]) {
        self.init(outcome: row[0].text, reason: row[1].text, count: Int(row[2].integer ?? 0))
    }
}
