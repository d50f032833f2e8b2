package import PushSealGatewayModel

/// What the operators see: the counts behind the metrics and the status page, and the instances
/// that share the database.
package protocol OperationsStore: Sendable {
    /// Counts for the metrics: deliveries by status, the oldest queued one, devices registered and
    /// unregistered, webhook events by endpoint.
    func statistics() throws -> GatewayStatistics
    /// The store's counters of its own work, for the metrics (SQLite: its one writer's).
    var metrics: [StoreMetric] { get }
    /// Records that `instance` is alive, and forgets instances silent since `forgetBefore`.
    func heartbeat(_ instance: InstanceRecord, forgetBefore: Int64) throws
    /// The instances heard from, newest heartbeat first.
    func instances() throws -> [InstanceRecord]
    /// Removes instance `id` from the list: it stopped cleanly, and will say nothing more.
    func forgetInstance(id: String) throws
    /// How deliveries that ended since `time` ended, by status and reason.
    func outcomes(since time: Int64) throws -> [OutcomeCount]
    /// The reasons queued deliveries wait to be tried again for, most frequent first, at most
    /// `limit` of them (read through the index of queued rows: its cost grows with the queue).
    func retrying(limit: Int) throws -> [RetryingCount]
}

extension OperationsStore where Self: SQLExecutor {
    package func statistics() throws -> GatewayStatistics {
        try readTransaction { sql in
            var statistics = GatewayStatistics()
            for row in try sql("SELECT status, count(*) FROM deliveries GROUP BY status") {
                if let status = row[0].text.flatMap(DeliveryStatus.init(rawValue:)) {
                    statistics.deliveries[status] = Int(row[1].integer ?? 0)
                }
            }
            let devices = try sql(
                "SELECT count(*) FILTER (WHERE unregistered_at IS NULL), "
                    + "count(*) FILTER (WHERE unregistered_at IS NOT NULL) FROM devices")
            statistics.activeDevices = Int(devices.first?[0].integer ?? 0)
            statistics.unregisteredDevices = Int(devices.first?[1].integer ?? 0)
            statistics.oldestQueuedAcceptedAt =
                try sql("SELECT min(accepted_at) FROM deliveries WHERE status = 'queued'").first?.first?.integer
            try WebhookOutbox.count(into: &statistics, sql)
            return statistics
        }
    }

    package func heartbeat(_ instance: InstanceRecord, forgetBefore: Int64) throws {
        try transaction { sql in
            let (statement, values) = instance.upsert(placeholder: sql.placeholder)
            try sql(statement, values)
            try sql("DELETE FROM instances WHERE heartbeat_at < \(sql.placeholder(1))", [.integer(forgetBefore)])
        }
    }

    package func instances() throws -> [InstanceRecord] {
        try read("\(InstanceRecord.selectColumns) ORDER BY heartbeat_at DESC, id", []).map(InstanceRecord.init(row:))
    }

    package func forgetInstance(id: String) throws {
        try write("DELETE FROM instances WHERE id = \(placeholder(1))", [.text(id)])
    }

    package func outcomes(since time: Int64) throws -> [OutcomeCount] {
        try read(OutcomeCount.query(placeholder(1)), [.integer(time)]).compactMap(OutcomeCount.init(row:))
    }

    package func retrying(limit: Int) throws -> [RetryingCount] {
        try read(RetryingCount.query(placeholder(1)), [.integer(Int64(limit))]).map(RetryingCount.init(row:))
    }
}
