internal import Dispatch
internal import PushSealCore
internal import PushSealGatewayModel
internal import PushSealGatewayStorage
internal import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The gateway's own upkeep, on one background queue: a heartbeat every 10 s (the status page
/// lists each instance), and a retention sweep every minute that deletes what ended more than
/// the retention time ago (gateway-v1.md, "Retention"): ended deliveries, then pushes left with
/// none (and so their idempotency keys), each in batches of ``batchSize`` rows, one short
/// transaction each, with a pause between, so the API and the workers never wait on it long.
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
    private let retentionMilliseconds: Int64
    private let metrics: Metrics
    private let log: EventLog
    private let queue = DispatchQueue(label: "pushseal-gateway.housekeeping")
    /// The timers; touched only on `queue`.
    private var timers: [any DispatchSourceTimer] = []
    private let stopping = Atomic<Bool>(false)

    /// Upkeep of `store`, keeping ended records `retentionHours`.
    init(store: any GatewayStore, retentionHours: Int, metrics: Metrics, log: EventLog) {
        self.store = store
        self.retentionMilliseconds = Int64(retentionHours) * 3_600_000
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
            log.write("store-error", [("detail", .string("\(error)"))])
        }
    }

    private func heartbeat() {
        let now = GatewayClock.milliseconds()
        let beat = InstanceRecord(
            id: instance.id, version: instance.version, startedAt: instance.startedAt, heartbeatAt: now)
        do {
            try store.heartbeat(beat, forgetBefore: now - Self.forgetInstancesAfter)
        } catch {
            log.write("store-error", [("detail", .string("\(error)"))])
        }
    }

    /// Deletes what ended before `now` minus the retention time; the rows deleted from each table.
    @discardableResult
    func sweep(now: Int64) -> RetentionSweep {
        let cutoff = now - retentionMilliseconds
        var deleted = RetentionSweep()
        do {
            deleted.deliveries = try repeatBatches {
                try store.deleteFinishedDeliveries(endedBefore: cutoff, limit: $0)
            }
            metrics.retentionDeleted(deleted.deliveries, from: "deliveries")
            deleted.pushes = try repeatBatches { try store.deleteEmptyPushes(acceptedBefore: cutoff, limit: $0) }
            metrics.retentionDeleted(deleted.pushes, from: "pushes")
            deleted.webhookEvents = try repeatBatches {
                try store.deleteFinishedWebhookEvents(endedBefore: cutoff, limit: $0)
            }
            metrics.retentionDeleted(deleted.webhookEvents, from: "webhook_events")
        } catch {
            log.write("store-error", [("detail", .string("\(error)"))])
        }
        if deleted != RetentionSweep() {
            log.write(
                "retention",
                [
                    ("deliveries_deleted", .number(JSONNumber(deleted.deliveries))),
                    ("pushes_deleted", .number(JSONNumber(deleted.pushes))),
                    ("webhook_events_deleted", .number(JSONNumber(deleted.webhookEvents))),
                ])
        }
        return deleted
    }

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
    /// Pushes left with no delivery (their idempotency keys with them).
    var pushes = 0
    /// Webhook events that had ended.
    var webhookEvents = 0
}
