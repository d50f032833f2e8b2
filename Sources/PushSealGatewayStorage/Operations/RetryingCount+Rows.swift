package import PushSealGatewayModel

extension RetryingCount {
    /// The query of the reasons queued deliveries wait for, at most as many as parameter `limit`
    /// (`?1` or `$1`) says, of the app in parameter `app` when given (every app's when nil). A
    /// delivery tried but not yet answered keeps the reason of the attempt before; one never
    /// tried has none, and is not counted.
    package static func query(_ limit: String, app: String?) -> String {
        "SELECT reason, count(*), min(next_attempt_at) FROM deliveries WHERE status = 'queued' AND reason IS NOT NULL "
            + (app.map { "AND app = \($0) " } ?? "")
            + "GROUP BY reason ORDER BY count(*) DESC, reason LIMIT \(limit)"
    }

    /// A row of ``query(_:)``.
    package init(row: [DatabaseValue]) {
        self.init(reason: row[0].text ?? "", count: Int(row[1].integer ?? 0), nextAttemptAt: row[2].integer ?? 0)
    }
}
