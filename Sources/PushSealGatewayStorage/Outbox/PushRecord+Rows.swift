package import PushSealGatewayModel

extension PushRecord {
    /// Push `id` of `app` with up to `limit` of its deliveries after row `after`, and the counts of
    /// all of them by status; nil when `app` has no such push. Runs in `sql`'s transaction.
    package static func read(id: String, in app: AppID, after: Int64, limit: Int, _ sql: StatementRunner) throws
        -> PushRecord?
    {
        let p = sql.placeholder
        guard
            let accepted = try sql(
                "SELECT accepted_at FROM pushes WHERE id = \(p(1)) AND app = \(p(2))", [.text(id), .text(app.name)]
            ).first
        else { return nil }
        let deliveries = try sql(
            "SELECT \(DeliveryState.Column.list) FROM deliveries WHERE push_id = \(p(1)) "
                + "AND id > \(p(2)) ORDER BY id LIMIT \(p(3))",
            [.text(id), .integer(after), .integer(Int64(limit))]
        ).map(DeliveryState.init(row:))
        var counts: [DeliveryStatus: Int] = [:]
        for row in try sql(
            "SELECT status, count(*) FROM deliveries WHERE push_id = \(p(1)) GROUP BY status", [.text(id)])
        {
            if let status = row[0].text.flatMap(DeliveryStatus.init(rawValue:)) {
                counts[status] = Int(row[1].integer ?? 0)
            }
        }
        return PushRecord(id: id, acceptedAt: accepted[0].integer ?? 0, deliveries: deliveries, counts: counts)
    }
}
