internal import Dispatch
internal import PushSealCore
internal import PushSealGatewayModel
internal import PushSealGatewayStorage
internal import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The gateway's own upkeep, on one background queue: a heartbeat every 10 s (the status page
/// lists each instance, and `apps` each app with when an instance last served it), and a
/// retention sweep every minute (gateway-v1.md, "Retention"). The sweep goes app by app through
/// every app listed or served, deleting what ended more than the app's retention time ago: ended
/// deliveries, then pushes left with none (and so their idempotency keys), then webhook events,
/// then content kept to fetch (any that expired too, whatever its age); and, for an app no instance served for that long, its queued deliveries, which no worker will
/// claim (its Web Push deliveries alone, for an app no instance with `webpush` for it served for
/// that long). It deletes in batches of ``batchSize`` rows, one short transaction each, with a pause
/// between, so the API and the workers never wait on it long.
final class Housekeeping: @unchecked Sendable {
    /// Rows one statement of the sweep deletes at most.
    static let batchSize = 500
    /// How often the instance says it is alive.
    static let heartbeatInterval = DispatchTimeInterval.seconds(10)
    /// How often the sweep runs.
    static let sweepInterval = DispatchTimeInterval.seconds(60)
    /// An instance silent this long is dropped from the list.
    static let forgetInstancesAfter: Int64 = 24 * 3_600_000

    /// This instance.
    let instance: InstanceRecord

    private let store: any GatewayStore
    /// The apps this instance serves, in configuration order.
    private let served: [ServedApp]
    /// The retention of a listed app that no instance has served since the schema took apps.
    private let retentionHours: Int
    private let metrics: Metrics
    private let log: EventLog
    private let queue = DispatchQueue(label: "pushseal-gateway.housekeeping")
    /// The timers; touched only on `queue`.
    private var timers: [any DispatchSourceTimer] = []
    private let stopping = Atomic<Bool>(false)

    /// Upkeep of `store` for an instance serving `served`, each app's ended records kept for its
    /// retention, those of an app listed with none for `retentionHours`.
    init(
        store: any GatewayStore, serving served: [ServedApp], retentionHours: Int,
        metrics: Metrics, log: EventLog
    ) {
        self.store = store
        self.served = served
        self.retentionHours = retentionHours
        self.metrics = metrics
        self.log = log
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, host.count - 1)
        let name = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let now = GatewayClock.milliseconds()
        instance = InstanceRecord(
            id: "\(name.isEmpty ? "gateway" : name)-\(RandomUUID.make().prefix(8))", version: GatewayVersion.number,
            startedAt: now, heartbeatAt: now)
    }

    /// Starts both timers; the first heartbeat and sweep run at once.
    func start() {
        let beats = DispatchSource.makeTimerSource(queue: queue)
        beats.schedule(deadline: .now(), repeating: Self.heartbeatInterval, leeway: .seconds(1))
        beats.setEventHandler { [self] in heartbeat() }
        let sweeps = DispatchSource.makeTimerSource(queue: queue)
        sweeps.schedule(deadline: .now() + .seconds(1), repeating: Self.sweepInterval, leeway: .seconds(5))
        sweeps.setEventHandler { [self] in _ = sweep(now: GatewayClock.milliseconds()) }
        queue.sync { timers = [beats, sweeps] }
        beats.resume()
        sweeps.resume()
    }

    /// Stops the timers, after a sweep in progress ends its current batch.
    func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        queue.sync {
            for timer in timers { timer.cancel() }
            timers = []
        }
    }

    /// Takes this instance off the list, after a clean stop: the status page no longer shows it
    /// with a heartbeat that only ages.
    func leave() {
        do {
            try store.forgetInstance(id: instance.id)
        } catch {
            log.storeError(error, counting: metrics)
        }
    }

    private func heartbeat() {
        let now = GatewayClock.milliseconds()
        let beat = InstanceRecord(
            id: instance.id, version: instance.version, startedAt: instance.startedAt, heartbeatAt: now)
        let apps = served.map {
            AppRecord(
                id: $0.id, retentionHours: $0.retentionHours, servedAt: now, webPushServedAt: $0.webPush ? now : nil)
        }
        do {
            try store.heartbeat(beat, serving: apps, forgetBefore: now - Self.forgetInstancesAfter)
        } catch {
            log.storeError(error, counting: metrics)
        }
    }

    /// Deletes, app by app, what ended before `now` minus the app's retention time, and the
    /// queued deliveries of an app no instance served for that long; the rows deleted from each
    /// table, every app's together.
    @discardableResult
    func sweep(now: Int64) -> RetentionSweep {
        var deleted = RetentionSweep()
        do {
            for app in try sweptApps(now: now) {
                try sweep(app, into: &deleted)
                deleted.fetchObjects += try repeatBatches {
                    try store.deleteExpiredFetchObjects(in: app.id, before: now, limit: $0)
                }
            }
        } catch {
            log.storeError(error, counting: metrics)
        }
        metrics.retentionDeleted(deleted.deliveries + deleted.abandonedDeliveries, from: "deliveries")
        metrics.retentionDeleted(deleted.pushes, from: "pushes")
        metrics.retentionDeleted(deleted.webhookEvents, from: "webhook_events")
        metrics.retentionDeleted(deleted.fetchObjects, from: "fetch_objects")
        if deleted != RetentionSweep() {
            log.write(
                "retention",
                [
                    ("deliveries_deleted", .number(JSONNumber(deleted.deliveries))),
                    ("abandoned_deliveries_deleted", .number(JSONNumber(deleted.abandonedDeliveries))),
                    ("pushes_deleted", .number(JSONNumber(deleted.pushes))),
                    ("webhook_events_deleted", .number(JSONNumber(deleted.webhookEvents))),
                    ("fetch_objects_deleted", .number(JSONNumber(deleted.fetchObjects))),
                ])
        }
        return deleted
    }

    /// An app this instance serves: its retention, in hours, and whether it has `webpush` here.
    struct ServedApp {
        let id: AppID
        let retentionHours: Int
        let webPush: Bool
    }

    /// One app's share of a sweep: its rows older than `cutoff`, and the kinds of its queued
    /// deliveries that no instance claims, which go too.
    private struct SweptApp {
        let id: AppID
        let cutoff: Int64
        let abandoned: [DeliveryKind]
    }

    /// The apps a sweep at `now` goes through: those this instance serves, with their retention,
    /// then every other app listed, with the retention it was last served with (else the
    /// gateway's). An app no instance served within that time is abandoned whole; one no instance
    /// with `webpush` for it served within that time (and this one has none) loses its Web Push
    /// deliveries.
    private func sweptApps(now: Int64) throws -> [SweptApp] {
        let listed = try store.listedApps()
        func webPushIdle(_ id: AppID, before cutoff: Int64) -> Bool {
            (listed.first { $0.id == id }?.webPushServedAt ?? .min) < cutoff
        }
        var apps = served.map { app in
            let cutoff = now - Self.milliseconds(app.retentionHours)
            return SweptApp(
                id: app.id, cutoff: cutoff,
                abandoned: !app.webPush && webPushIdle(app.id, before: cutoff) ? [.webPush] : [])
        }
        for record in listed where !served.contains(where: { $0.id == record.id }) {
            let cutoff = now - Self.milliseconds(record.retentionHours ?? retentionHours)
            let abandoned: [DeliveryKind] =
                record.servedAt < cutoff
                ? DeliveryKind.allCases : webPushIdle(record.id, before: cutoff) ? [.webPush] : []
            apps.append(SweptApp(id: record.id, cutoff: cutoff, abandoned: abandoned))
        }
        return apps
    }

    /// Deletes `app`'s rows older than its cutoff, adding their counts to `deleted`.
    private func sweep(_ app: SweptApp, into deleted: inout RetentionSweep) throws {
        deleted.deliveries += try repeatBatches {
            try store.deleteFinishedDeliveries(in: app.id, endedBefore: app.cutoff, limit: $0)
        }
        for kind in app.abandoned {
            let abandoned = try repeatBatches {
                try store.deleteAbandonedDeliveries(kind, in: app.id, dueBefore: app.cutoff, limit: $0)
            }
            if abandoned > 0 {
                log.write(
                    "abandoned-deliveries",
                    [
                        ("app", .string(app.id.name)), ("kind", .string(kind.rawValue)),
                        ("deliveries_deleted", .number(JSONNumber(abandoned))),
                    ])
            }
            deleted.abandonedDeliveries += abandoned
        }
        deleted.pushes += try repeatBatches {
            try store.deleteEmptyPushes(in: app.id, acceptedBefore: app.cutoff, limit: $0)
        }
        deleted.webhookEvents += try repeatBatches {
            try store.deleteFinishedWebhookEvents(in: app.id, endedBefore: app.cutoff, limit: $0)
        }
        deleted.fetchObjects += try repeatBatches {
            try store.deleteFetchObjects(in: app.id, storedBefore: app.cutoff, limit: $0)
        }
    }

    /// `hours` in milliseconds.
    private static func milliseconds(_ hours: Int) -> Int64 { Int64(hours) * 3_600_000 }

    /// Runs `batch` with ``batchSize`` until it deletes fewer, pausing 20 ms between batches; the total.
    private func repeatBatches(_ batch: (Int) throws -> Int) throws -> Int {
        var total = 0
        while !stopping.load(ordering: .sequentiallyConsistent) {
            let deleted = try batch(Self.batchSize)
            total += deleted
            guard deleted == Self.batchSize else { break }
            usleep(20_000)
        }
        return total
    }
}

/// The rows one retention sweep deleted, by table.
struct RetentionSweep: Sendable, Equatable {
    /// Deliveries that had ended.
    var deliveries = 0
    /// Queued deliveries of apps no instance served within their retention.
    var abandonedDeliveries = 0
    /// Pushes left with no delivery (their idempotency keys with them).
    var pushes = 0
    /// Webhook events that had ended.
    var webhookEvents = 0
    /// Content kept to fetch that expired, was fetched a minute ago, or outlived its app's
    /// retention.
    var fetchObjects = 0
}
