package import PushSealGatewayModel

extension OutcomeCount {
    /// The query of outcomes since the time in parameter `since` (`?1` or `$1`), of the app in
    /// parameter `app` when given (every app's when nil).
    package static func query(_ since: String, app: String?) -> String {
        "SELECT status, reason, count(*) FROM deliveries WHERE status <> 'queued' AND finished_at >= \(since) "
            + (app.map { "AND app = \($0) " } ?? "") + "GROUP BY status, reason ORDER BY count(*) DESC, status, reason"
    }

    /// A row of ``query(_:)``; nil for an unknown status.
    package init?(row: [DatabaseValue]) {
        guard let status = row[0].text.flatMap(DeliveryStatus.init(rawValue:)) else { return nil }
        self.init(status: status, reason: row[1].text, count: Int(row[2].integer ?? 0))
    }
}
