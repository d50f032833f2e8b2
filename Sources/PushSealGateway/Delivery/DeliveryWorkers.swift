internal import Dispatch
internal import Foundation
internal import PushSealCore
internal import PushSealGatewayModel
internal import PushSealGatewayStorage
internal import Synchronization

/// The workers that empty the outbox of one kind of delivery (APNs, or Web Push): each leases due
/// deliveries of its kind a few at a time as its ``OutboxSender`` takes them (``DeliveryFeed``),
/// and records the outcomes in batches as they come (``OutcomeRecorder``). The kind's claims are
/// spaced once the outbox runs dry (``ClaimPacer``, one for all its workers), and the wakes that
/// pushes give are bounded (``WorkerWake``), so that a push costs a claim of its own only when
/// pushes are few. Each kind has workers of its own, so that a slow push service never holds APNs
/// deliveries, nor the reverse. The workers of a kind serve every configured app, claiming app by
/// app with the first app turned round at each claim, so that a backlog of one app holds another
/// app's next push for one claim at most. A delivery whose worker dies is leased again once its
/// lease ends, so nothing accepted is lost; delivery is at least once.
final class DeliveryWorkers: Sendable {
    /// The most streams a worker keeps in flight on its APNs connection.
    static let streams = 100
    /// Deliveries claimed at once: a quarter of the streams, so that a worker claims again as
    /// answers free them rather than once per round of answers.
    static let claimSize = 25
    /// The first wait before a recording that failed for a transient reason is tried again; each
    /// next one doubles, up to ``longestRecordingRetry``.
    static let firstRecordingRetry = Duration.milliseconds(50)
    /// The longest wait between two tries of a recording.
    static let longestRecordingRetry = Duration.seconds(2)

    /// The kind of delivery these workers send.
    let kind: DeliveryKind
    /// The apps whose deliveries they claim, in configuration order.
    private let apps: [AppID]
    /// Turns the apps round: each claim begins with the next app.
    private let rotation = Atomic<UInt>(0)
    private let store: any GatewayStore
    private let routing: WebhookRouting
    private let makeSender: @Sendable () -> any OutboxSender
    private let metrics: Metrics
    private let log: EventLog
    private let count: Int
    private let leaseMilliseconds: Int64
    private let wake: WorkerWake
    /// The pacing of the workers' claims, one for all of them: while the outbox is thin, they
    /// claim by turns.
    private let pacer = ClaimPacer()
    private let stopping = Atomic<Bool>(false)
    private let running = DispatchGroup()
    /// Workers sending a batch now.
    private let busy = Atomic<Int>(0)

    /// `count` workers of `kind` over `store` for `apps`, each sending through a sender of its
    /// own made by `makeSender`; each holds its batch for `leaseSeconds`, renewed a third of that
    /// while it works. Every end is recorded with the webhook events `routing` asks for.
    init(
        _ kind: DeliveryKind, of apps: [AppID], store: any GatewayStore, count: Int, leaseSeconds: Int,
        routing: WebhookRouting, metrics: Metrics, log: EventLog,
        makeSender: @escaping @Sendable () -> any OutboxSender
    ) {
        self.kind = kind
        self.apps = apps
        self.leaseMilliseconds = Int64(leaseSeconds) * 1_000
        self.store = store
        self.routing = routing
        self.makeSender = makeSender
        self.count = count
        self.wake = WorkerWake(workers: count)
        self.metrics = metrics
        self.log = log
    }

    /// Starts the workers.
    func start() {
        for index in 0..<count {
            let lease = BatchLease(worker: "\(RandomUUID.make())-\(index)")
            let recorder = OutcomeRecorder(name: "pushseal-gateway.\(kind.rawValue).\(index).record") { [self] in
                record($0)
            }
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
                    recorder.close()
                    running.leave()
                }
                run(lease: lease, recorder: recorder)
            }
        }
    }

    /// Wakes an idle worker, or holds the wake for the next to wait (at most one per worker): a
    /// push was accepted.
    func notify() { wake.notify() }

    /// Stops claiming: each worker ends once its batch in flight is done (the rest stays queued
    /// for the next start). Returns at once; ``waitUntilStopped(before:)`` waits for them.
    func beginStopping() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        wake.wakeAll()
    }

    /// Waits until every worker has ended, or `deadline`. Returns how many workers were still
    /// sending then: their batches stay leased, and are claimed again once the lease runs out.
    func waitUntilStopped(before deadline: ContinuousClock.Instant) -> Int {
        guard running.wait(timeout: .at(deadline)) == .timedOut else { return 0 }
        return busy.load(ordering: .sequentiallyConsistent)
    }

    private func run(lease: BatchLease, recorder: OutcomeRecorder) {
        var sender = makeSender()
        while !stopping.load(ordering: .sequentiallyConsistent) {
            let owner = lease.begin()
            defer { lease.end() }
            let first: [OutboxDelivery]
            do {
                first = try claim(owner: owner, recorder: recorder)
            } catch {
                log.storeError(error, counting: metrics)
                _ = wake.wait(timeout: .now() + 1)
                continue
            }
            guard !first.isEmpty else {
                _ = wake.wait(timeout: .now() + 0.2)
                continue
            }
            busy.add(1, ordering: .sequentiallyConsistent)
            // Claims more as the sender takes them, until none is due (or the workers stop).
            let feed = DeliveryFeed(
                first: first, lowWater: Self.claimSize, name: "pushseal-gateway.\(kind.rawValue).claims",
                isStopping: { [self] in stopping.load(ordering: .sequentiallyConsistent) }
            ) { [self] in
                guard !stopping.load(ordering: .sequentiallyConsistent) else { return [] }
                do {
                    return try claim(owner: owner, recorder: recorder)
                } catch {
                    log.storeError(error, counting: metrics)
                    return []
                }
            }
            sender.send(feed) { delivery, outcome, attempts in
                recorder.add(
                    EndedAttempt(
                        delivery: delivery, outcome: outcome, attempts: attempts, time: GatewayClock.milliseconds()))
            }
            feed.close()
            recorder.waitUntilWritten()
            busy.subtract(1, ordering: .sequentiallyConsistent)
        }
    }

    /// The apps in the order the next claim serves them: one further round than the last claim's.
    private func nextRound() -> [AppID] {
        guard apps.count > 1 else { return apps }
        let first = Int(rotation.wrappingAdd(1, ordering: .relaxed).oldValue % UInt(apps.count))
        return Array(apps[first...] + apps[..<first])
    }

    /// Leases the next ``claimSize`` due deliveries for `owner`, once ``pacer`` gives it a turn; the
    /// ones not worth a request are recorded through `recorder` and left out
    /// (``sendable(_:recorder:)``). Empty when none is due, or when the turn is another worker's,
    /// whose claim takes what is due for both.
    private func claim(owner: String, recorder: OutcomeRecorder) throws -> [OutboxDelivery] {
        while true {
            guard let turn = pacer.waitForTurn() else { return [] }
            let claimed: [OutboxDelivery]
            do {
                claimed = try store.claimDeliveries(
                    kind, from: nextRound(), limit: Self.claimSize, at: GatewayClock.milliseconds(),
                    leaseMilliseconds: leaseMilliseconds, owner: owner)
            } catch {
                _ = pacer.claimed(0, of: Self.claimSize, turn: turn)
                throw error
            }
            let again = pacer.claimed(claimed.count, of: Self.claimSize, turn: turn)
            metrics.claim(kind, found: claimed.count, of: Self.claimSize)
            let sendable = sendable(claimed, recorder: recorder)
            if !sendable.isEmpty || (claimed.isEmpty && !again) { return sendable }
        }
    }

    /// The deliveries of `batch` worth a request; the others' outcomes are recorded here: a
    /// stored row no request could have made fails, an expired push expires, and an address
    /// another push found gone is not tried again.
    private func sendable(_ batch: [OutboxDelivery], recorder: OutcomeRecorder) -> [OutboxDelivery] {
        let now = GatewayClock.milliseconds()
        return batch.filter { delivery in
            let outcome: DeliveryOutcome
            if let defect = delivery.defect {
                log.write(
                    "invalid-delivery",
                    [
                        ("app", .string(delivery.app.name)), ("push", .string(delivery.pushID)),
                        ("detail", .string(defect)),
                    ])
                outcome = .failed(reason: .gateway(.invalidDelivery))
            } else if let expiration = delivery.expiration, expiration > 0, expiration < now / 1_000 {
                outcome = .expired
            } else if delivery.addressIsGone {
                outcome = .unregistered(reason: .apns("Unregistered"), timestamp: nil)
            } else {
                return true
            }
            recorder.add(EndedAttempt(delivery: delivery, outcome: outcome, attempts: delivery.attempts, time: now))
            return false
        }
    }

    /// Records `batch` in one transaction, then counts and logs each outcome. A failure that may
    /// pass when tried again (a deadlock, a lock or connection that stayed busy, a lost
    /// connection) is tried again, logged `store-retry`, for up to a lease's length while the
    /// worker keeps renewing the batch's lease: dropping the recording would send the batch again
    /// once its lease ran out. Any other failure, or one that lasts, is logged `store-error`, and
    /// the deliveries stay leased until their lease ends (then they are sent again: at least once).
    private func record(_ batch: [EndedAttempt]) {
        let giveUp = ContinuousClock.now + .milliseconds(leaseMilliseconds)
        var wait = Self.firstRecordingRetry
        var tries = 1
        while true {
            do {
                try store.finish(batch, routing: routing)
                break
            } catch  where isTransientStoreFailure(error) && ContinuousClock.now + wait < giveUp {
                log.write(
                    "store-retry",
                    [
                        ("detail", .string("\(error)")), ("deliveries", .number(JSONNumber(batch.count))),
                        ("tries", .number(JSONNumber(tries))),
                    ])
                Thread.sleep(forTimeInterval: wait.seconds)
                wait = min(wait * 2, Self.longestRecordingRetry)
                tries += 1
            } catch {
                log.storeError(error, counting: metrics)
                return
            }
        }
        for ended in batch {
            let delivery = ended.delivery
            let (status, reason) = ended.outcome.statusAndReason
            metrics.delivery(status, reason: reason, in: delivery.app)
            if status == .sent, delivery.kind == .apns {
                metrics.latency(seconds: Double(ended.time - delivery.acceptedAt) / 1_000)
            }
            var members: [(String, JSONValue)] = [
                ("app", .string(delivery.app.name)), ("push", .string(delivery.pushID)),
                ("device", .string(delivery.deviceID)),
                ("attempts", .number(JSONNumber(ended.attempts))),
            ]
            switch delivery.kind {
            case .apns: members.append(("token", EventLog.tokenPrefix(delivery.address)))
            case .webPush: members.append(("push_service", EventLog.endpointOrigin(delivery.address)))
            }
            if let reason { members.append(("reason", .string(reason.text))) }
            // A refused provider token holds every delivery of its key until an operator fixes it.
            let tokenRefused = reason.map { APNsSender.providerTokenRefusals.contains($0.text) } ?? false
            log.write(status.rawValue, members, level: tokenRefused ? "error" : nil)
        }
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
