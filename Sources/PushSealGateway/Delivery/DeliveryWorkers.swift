internal import Dispatch
internal import PushSealCore
internal import Synchronization

/// The workers that empty the outbox of one kind of delivery (APNs, or Web Push): each leases a
/// batch of due deliveries of its kind, hands the ones still worth sending to its
/// ``OutboxSender``, and records every outcome. Each kind has workers of its own, so that a slow
/// push service never holds APNs deliveries, nor the reverse. A delivery whose worker dies is
/// leased again once its lease ends, so nothing accepted is lost; delivery is at least once.
final class DeliveryWorkers: Sendable {
    /// The reason of a delivery whose stored row cannot be processed (``OutboxDelivery/defect``).
    static let invalidDeliveryReason = "InvalidDelivery"
    /// Deliveries claimed at once.
    static let batchSize = 100
    /// Requests made for one delivery before a transient failure is final.
    static let maximumAttempts = 12

    private let kind: DeliveryKind
    private let store: any GatewayStore
    private let routing: WebhookRouting
    private let makeSender: @Sendable () -> any OutboxSender
    private let metrics: Metrics
    private let log: EventLog
    private let count: Int
    private let leaseMilliseconds: Int64
    private let wake = DispatchSemaphore(value: 0)
    private let stopping = Atomic<Bool>(false)
    private let running = DispatchGroup()
    /// Workers sending a batch now.
    private let busy = Atomic<Int>(0)

    /// `count` workers of `kind` over `store`, each sending through a sender of its own made by
    /// `makeSender`; each holds its batch for `leaseSeconds`, renewed a third of that while it works.
    /// Every end is recorded with the webhook events `routing` asks for.
    init(
        _ kind: DeliveryKind, store: any GatewayStore, count: Int, leaseSeconds: Int, routing: WebhookRouting,
        metrics: Metrics, log: EventLog,
        makeSender: @escaping @Sendable () -> any OutboxSender
    ) {
        self.kind = kind
        self.leaseMilliseconds = Int64(leaseSeconds) * 1_000
        self.store = store
        self.routing = routing
        self.makeSender = makeSender
        self.count = count
        self.metrics = metrics
        self.log = log
    }

    /// Starts the workers.
    func start() {
        for index in 0..<count {
            let lease = BatchLease(worker: "\(RandomUUID.make())-\(index)")
            running.enter()
            DispatchQueue(label: "pushseal-gateway.\(kind.rawValue).\(index)").async { [self] in
                let renewal = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "pushseal-gateway.lease"))
                renewal.schedule(
                    deadline: .now(), repeating: .milliseconds(Int(leaseMilliseconds / 3)), leeway: .milliseconds(100))
                renewal.setEventHandler { [self] in
                    guard let owner = lease.owner else { return }
                    try? store.renewLeases(owner: owner, until: GatewayClock.milliseconds() + leaseMilliseconds)
                }
                renewal.resume()
                defer {
                    renewal.cancel()
                    running.leave()
                }
                run(lease: lease)
            }
        }
    }

    /// Wakes an idle worker: a push was accepted.
    func notify() { wake.signal() }

    /// Stops claiming; returns once every worker has finished its batch in flight (the rest stays
    /// queued for the next start), or at `deadline`. Returns how many workers were still sending
    /// then: their batches stay leased, and are claimed again once the lease runs out.
    @discardableResult
    func stop(before deadline: ContinuousClock.Instant) -> Int {
        stopping.store(true, ordering: .sequentiallyConsistent)
        for _ in 0..<count { wake.signal() }
        let left = ContinuousClock.now.duration(to: deadline).components
        let nanoseconds = max(0, Int(left.seconds) * 1_000_000_000 + Int(left.attoseconds / 1_000_000_000))
        guard running.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .timedOut else { return 0 }
        return busy.load(ordering: .sequentiallyConsistent)
    }

    private func run(lease: BatchLease) {
        var sender = makeSender()
        while !stopping.load(ordering: .sequentiallyConsistent) {
            let claimed: [OutboxDelivery]
            let owner = lease.begin()
            defer { lease.end() }
            do {
                claimed = try store.claimDeliveries(
                    kind, limit: Self.batchSize, at: GatewayClock.milliseconds(), leaseMilliseconds: leaseMilliseconds,
                    owner: owner)
            } catch {
                log.write("store-error", [("detail", .string("\(error)"))])
                _ = wake.wait(timeout: .now() + 1)
                continue
            }
            guard !claimed.isEmpty else {
                _ = wake.wait(timeout: .now() + 0.2)
                continue
            }
            busy.add(1, ordering: .sequentiallyConsistent)
            sender.send(sendable(claimed)) { [self] delivery, outcome, attempts in
                record(delivery, outcome, attempts: attempts)
            }
            busy.subtract(1, ordering: .sequentiallyConsistent)
        }
    }

    /// The deliveries of `batch` worth a request; the others' outcomes are recorded here: a
    /// stored row no request could have made fails, an expired push expires, and an address
    /// another push found gone is not tried again.
    private func sendable(_ batch: [OutboxDelivery]) -> [OutboxDelivery] {
        let now = GatewayClock.milliseconds()
        return batch.filter { delivery in
            if let defect = delivery.defect {
                log.write("invalid-delivery", [("push", .string(delivery.pushID)), ("detail", .string(defect))])
                record(delivery, .failed(reason: Self.invalidDeliveryReason), attempts: delivery.attempts)
            } else if let expiration = delivery.expiration, expiration > 0, expiration < now / 1_000 {
                record(delivery, .expired, attempts: delivery.attempts)
            } else if delivery.addressIsGone {
                record(delivery, .unregistered(reason: "Unregistered", timestamp: nil), attempts: delivery.attempts)
            } else {
                return true
            }
            return false
        }
    }

    /// When a delivery whose `attempts`-th request failed for a transient cause is tried again,
    /// as of `time`: after `retryAfterSeconds` when the service asked for a wait (at most an
    /// hour), else after 30 s doubled at each round (at most an hour, with jitter); nil once
    /// ``maximumAttempts`` requests were made.
    static func retryTime(attempts: Int, retryAfterSeconds: Int? = nil, at time: Int64) -> Int64? {
        guard attempts < maximumAttempts else { return nil }
        if let retryAfterSeconds { return time + Int64(min(max(retryAfterSeconds, 1), 3_600)) * 1_000 }
        let delay = min(3_600_000, 30_000 << min(attempts, 20))
        return time + Int64.random(in: Int64(delay / 2)...Int64(delay))
    }

    private func record(_ delivery: OutboxDelivery, _ outcome: DeliveryOutcome, attempts: Int) {
        let now = GatewayClock.milliseconds()
        do {
            try store.finish(delivery, outcome, attempts: attempts, at: now, routing: routing)
        } catch {
            log.write("store-error", [("detail", .string("\(error)"))])
            return
        }
        let (status, reason) = outcome.statusAndReason
        metrics.delivery(status, reason: reason)
        if status == .sent, delivery.kind == .apns {
            metrics.latency(seconds: Double(now - delivery.acceptedAt) / 1_000)
        }
        var members: [(String, JSONValue)] = [
            ("push", .string(delivery.pushID)), ("device", .string(delivery.deviceID)),
            ("attempts", .number(JSONNumber(attempts))),
        ]
        switch delivery.kind {
        case .apns: members.append(("token", EventLog.tokenPrefix(delivery.address)))
        case .webPush: members.append(("push_service", EventLog.endpointOrigin(delivery.address)))
        }
        if let reason { members.append(("reason", .string(reason))) }
        log.write(status.rawValue, members)
    }
}

/// The lease a worker holds on its current batch. Each batch has an owner name of its own, and
/// renewal stops when the batch ends: a delivery whose outcome could not be recorded (the
/// database was away) is then no longer renewed, and is claimed again once its lease runs out,
/// instead of staying leased for as long as its worker lives.
private final class BatchLease: Sendable {
    private let worker: String
    private let state = Mutex<(batch: Int, owner: String?)>((0, nil))

    init(worker: String) { self.worker = worker }

    /// The owner name of the batch being claimed, renewed until ``end()``.
    func begin() -> String {
        state.withLock { state in
            state.batch += 1
            let owner = "\(worker)-\(state.batch)"
            state.owner = owner
            return owner
        }
    }

    /// The batch is over: its lease is no longer renewed.
    func end() { state.withLock { $0.owner = nil } }

    /// The owner to renew, while a batch runs.
    var owner: String? { state.withLock { $0.owner } }
}
