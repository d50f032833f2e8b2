package import PushSealGatewayModel

/// What the operators see: the counts behind the metrics and the status page, and the instances
/// that share the database.
package protocol OperationsStore: Sendable {
    /// Counts for the metrics and the status: deliveries by status, the oldest queued one, devices
    /// registered and unregistered, webhook events by endpoint, and each app's queue and devices;
    /// `app`'s alone, or every app's when nil.
    func statistics(in app: AppID?) throws -> GatewayStatistics
    /// The store's counters of its own work, for the metrics (SQLite: its one writer's).
    var metrics: [StoreMetric] { get }
    /// Records that `instance` is alive and serves `apps` (each with its retention, served at the
    /// heartbeat's time), and forgets instances silent since `forgetBefore`.
    func heartbeat(_ instance: InstanceRecord, serving apps: [AppRecord], forgetBefore: Int64) throws
    /// Every app that may have rows, by name: each app an instance served since the schema took
    /// apps, and `default` when rows came from before.
    func listedApps() throws -> [AppRecord]
    /// The instances heard from, newest heartbeat first.
    func instances() throws -> [InstanceRecord]
    /// Removes instance `id` from the list: it stopped cleanly, and will say nothing more.
    func forgetInstance(id: String) throws
    /// How deliveries that ended since `time` ended, by status and reason: `app`'s, or every
    /// app's when nil.
    func outcomes(since time: Int64, in app: AppID?) throws -> [OutcomeCount]
    /// The reasons queued deliveries wait to be tried again for, most frequent first, at most
    /// `limit` of them (read through the index of queued rows: its cost grows with the queue):
    /// `app`'s, or every app's when nil.
    func retrying(limit: Int, in app: AppID?) throws -> [RetryingCount]
    /// How `app`'s deliveries sent since `time` with receipts stand: displayed, degraded (by
    /// reason), or not reported yet.
    func displays(since time: Int64, in app: AppID) throws -> [DisplayCount]
}

extension OperationsStore {
    /// Every app's counts, for the metrics.
    package func statistics() throws -> GatewayStatistics { try statistics(in: nil) }
}

extension OperationsStore where Self: SQLExecutor {
    package func statistics(in app: AppID?) throws -> GatewayStatistics {
        try readTransaction { sql in
            let (inApp, whereApp, values) = Self.appCondition(app, sql)
            var statistics = GatewayStatistics()
            for row in try sql(
                "SELECT app, status, count(*) FROM deliveries\(whereApp) GROUP BY app, status", values)
            {
                guard let status = row[1].text.flatMap(DeliveryStatus.init(rawValue:)) else { continue }
                let count = Int(row[2].integer ?? 0)
                statistics.deliveries[status, default: 0] += count
                if status == .queued, let app = row[0].text.flatMap(AppID.init) {
                    statistics.apps[app, default: AppStatistics()].queued = count
                }
            }
            for row in try sql(
                "SELECT app, min(accepted_at) FROM deliveries WHERE status = 'queued'\(inApp) GROUP BY app", values)
            {
                guard let oldest = row[1].integer else { continue }
                statistics.oldestQueuedAcceptedAt = min(statistics.oldestQueuedAcceptedAt ?? oldest, oldest)
                if let app = row[0].text.flatMap(AppID.init) {
                    statistics.apps[app, default: AppStatistics()].oldestQueuedAcceptedAt = oldest
                }
            }
            for row in try sql(
                "SELECT app, count(*) FILTER (WHERE unregistered_at IS NULL), "
                    + "count(*) FILTER (WHERE unregistered_at IS NOT NULL) FROM devices\(whereApp) GROUP BY app",
                values)
            {
                let (active, unregistered) = (Int(row[1].integer ?? 0), Int(row[2].integer ?? 0))
                statistics.activeDevices += active
                statistics.unregisteredDevices += unregistered
                if let app = row[0].text.flatMap(AppID.init) {
                    statistics.apps[app, default: AppStatistics()].activeDevices = active
                    statistics.apps[app, default: AppStatistics()].unregisteredDevices = unregistered
                }
            }
            try WebhookOutbox.count(into: &statistics, inApp: inApp, values, sql)
            return statistics
        }
    }

    /// The condition that keeps `app`'s rows (none when nil: every app's), as ` AND app = $1`
    /// and as ` WHERE app = $1`, with its value.
    private static func appCondition(_ app: AppID?, _ sql: StatementRunner) -> (
        and: String, where: String, values: [DatabaseValue]
    ) {
        guard let app else { return ("", "", []) }
        return (" AND app = \(sql.placeholder(1))", " WHERE app = \(sql.placeholder(1))", [.text(app.name)])
    }

    package func heartbeat(_ instance: InstanceRecord, serving apps: [AppRecord], forgetBefore: Int64) throws {
        try transaction { sql in
            let (statement, values) = instance.upsert(placeholder: sql.placeholder)
            try sql(statement, values)
            for app in apps {
                let (statement, values) = app.upsert(placeholder: sql.placeholder)
                try sql(statement, values)
            }
            try sql("DELETE FROM instances WHERE heartbeat_at < \(sql.placeholder(1))", [.integer(forgetBefore)])
        }
    }

    package func listedApps() throws -> [AppRecord] {
        try read(AppRecord.selectAll, []).compactMap(AppRecord.init(row:))
    }

    package func instances() throws -> [InstanceRecord] {
        try read("\(InstanceRecord.selectColumns) ORDER BY heartbeat_at DESC, id", []).map(InstanceRecord.init(row:))
    }

    package func forgetInstance(id: String) throws {
        try write("DELETE FROM instances WHERE id = \(placeholder(1))", [.text(id)])
    }

    package func outcomes(since time: Int64, in app: AppID?) throws -> [OutcomeCount] {
        try read(
            OutcomeCount.query(placeholder(1), app: app == nil ? nil : placeholder(2)),
            [.integer(time)] + (app.map { [.text($0.name)] } ?? [])
        ).compactMap(OutcomeCount.init(row:))
    }

    package func displays(since time: Int64, in app: AppID) throws -> [DisplayCount] {
        try read(DisplayCount.query(dialect), [.integer(time), .text(app.name)]).map(DisplayCount.init(row:))
    }

    package func retrying(limit: Int, in app: AppID?) throws -> [RetryingCount] {
        try read(
            RetryingCount.query(placeholder(1), app: app == nil ? nil : placeholder(2)),
            [.integer(Int64(limit))] + (app.map { [.text($0.name)] } ?? [])
        ).map(RetryingCount.init(row:))
    }
}
