internal import Dispatch
internal import PushSealCore
internal import PushSealDelivery
internal import Synchronization

/// The workers that empty the outbox: each leases a batch of due deliveries, sends them through
/// ``PushSealDelivery/APNsClient`` (one HTTP/2 connection per APNs host and worker, the whole
/// batch as concurrent streams within the server's limit, Apple's retry rules), and records every outcome. A delivery whose worker dies is
/// leased again once its lease ends, so nothing accepted is lost; delivery is at least once.
final class DeliveryWorkers: Sendable {
    /// The reason of a delivery whose stored row cannot be processed (``OutboxDelivery/defect``).
    static let invalidDeliveryReason = "InvalidDelivery"
    /// How long a request waits for APNs' answer, and requests for a stream, before the
    /// connection is given up: APNs answers in milliseconds, and a worker's batch (and a stop)
    /// waits on the slowest request. With the one retry, a batch against a peer that answers
    /// nothing ends within about 25 s.
    static let answerTimeout = Duration.seconds(10)
    /// Deliveries claimed at once.
    static let batchSize = 100
    /// Requests made for one delivery before a transient failure is final.
    static let maximumAttempts = 12
    /// The client's own retries are few and short: longer waits belong to the outbox, which keeps
    /// the delivery queued (and its worker free) until its next attempt.
    static let clientPolicy: RetryPolicy = {
        var policy = RetryPolicy()
        policy.serverRetries = 1
        policy.throttleRetries = 1
        return policy
    }()

    private let store: any GatewayStore
    private let tokens: ProviderTokenIssuer
    private let hosts: [APNsEnvironment: APNsEndpoint]
    private let caFile: String?
    private let metrics: Metrics
    private let log: EventLog
    private let count: Int
    private let leaseMilliseconds: Int64
    private let wake = DispatchSemaphore(value: 0)
    private let stopping = Atomic<Bool>(false)
    private let running = DispatchGroup()

    /// Workers over `store`, sending with `tokens` to `hosts`; each holds its batch for
    /// `leaseSeconds`, renewed a third of that while it works.
    init(
        store: any GatewayStore, tokens: ProviderTokenIssuer, hosts: [APNsEnvironment: APNsEndpoint], caFile: String?,
        count: Int, leaseSeconds: Int, metrics: Metrics, log: EventLog
    ) {
        self.leaseMilliseconds = Int64(leaseSeconds) * 1_000
        self.store = store
        self.tokens = tokens
        self.hosts = hosts
        self.caFile = caFile
        self.count = count
        self.metrics = metrics
        self.log = log
    }

    /// Starts the workers.
    func start() {
        for index in 0..<count {
            let lease = BatchLease(worker: "\(RandomUUID.make())-\(index)")
            running.enter()
            DispatchQueue(label: "pushseal-gateway.worker.\(index)").async { [self] in
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
    /// queued for the next start).
    func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        for _ in 0..<count { wake.signal() }
        running.wait()
    }

    private func run(lease: BatchLease) {
        var clients: [APNsEnvironment: APNsClient] = [:]
        while !stopping.load(ordering: .sequentiallyConsistent) {
            let claimed: [OutboxDelivery]
            let owner = lease.begin()
            defer { lease.end() }
            do {
                claimed = try store.claimDeliveries(
                    limit: Self.batchSize, at: GatewayClock.milliseconds(), leaseMilliseconds: leaseMilliseconds,
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
            for environment in APNsEnvironment.allCases {
                let batch = claimed.filter { $0.environment == environment }
                guard !batch.isEmpty else { continue }
                do {
                    let client = try clients[environment] ?? client(for: environment)
                    clients[environment] = client
                    deliver(batch, with: client)
                } catch {
                    log.write(
                        "apns-error", [("environment", .string(environment.rawValue)), ("detail", .string("\(error)"))])
                }
            }
        }
    }

    private func client(for environment: APNsEnvironment) throws -> APNsClient {
        guard let endpoint = hosts[environment] else { throw GatewayError("no APNs host for \(environment)") }
        // A whole batch in flight at once, as far as the server's stream limit allows.
        return try APNsClient(
            endpoint: endpoint, tokens: tokens, concurrency: Self.batchSize, policy: Self.clientPolicy,
            answerTimeout: Self.answerTimeout, caFile: caFile)
    }

    /// Sends `batch` and records each outcome.
    private func deliver(_ batch: [OutboxDelivery], with client: APNsClient) {
        let now = GatewayClock.milliseconds()
        var sending: [OutboxDelivery] = []
        for delivery in batch {
            if let defect = delivery.defect {
                log.write(
                    "invalid-delivery", [("push", .string(delivery.pushID)), ("detail", .string(defect))])
                record(delivery, .failed(reason: Self.invalidDeliveryReason), attempts: delivery.attempts)
            } else if let expiration = delivery.expiration, expiration > 0, expiration < now / 1_000 {
                record(delivery, .expired, attempts: delivery.attempts)
            } else if delivery.tokenIsGone {
                record(delivery, .unregistered(reason: "Unregistered", timestamp: nil), attempts: delivery.attempts)
            } else {
                sending.append(delivery)
            }
        }
        let items: [DeliveryItem] = sending.enumerated().map { index, delivery in
            do {
                return .job(
                    try DeliveryJob(
                        line: index, deviceToken: delivery.token, headers: delivery.headers, body: delivery.body))
            } catch {
                return .invalid(line: index, reason: "\(error)")
            }
        }
        client.deliver(items) { result in
            let delivery = sending[result.line]
            let attempts = delivery.attempts + result.attempts
            record(
                delivery, Self.outcome(result, attempts: attempts, at: GatewayClock.milliseconds()), attempts: attempts)
        }
    }

    /// What a result means for the outbox: 410, `BadDeviceToken` and `DeviceTokenNotForTopic`
    /// mean the token is gone; a transient failure (429, 5xx, a lost connection) is tried again
    /// later, after 30 s doubled at each round (at most an hour, with jitter), until
    /// ``maximumAttempts`` requests were made.
    static func outcome(_ result: DeliveryResult, attempts: Int, at time: Int64) -> DeliveryOutcome {
        if result.status == .failed, result.transient, attempts < maximumAttempts {
            let delay = min(3_600_000, 30_000 << min(attempts, 20))
            let jittered = Int64.random(in: Int64(delay / 2)...Int64(delay))
            return .retry(at: time + jittered, reason: result.reason ?? "transient failure")
        }
        switch result.status {
        case .sent: return .sent(apnsID: result.apnsID)
        case .unregistered:
            return .unregistered(reason: result.reason ?? "Unregistered", timestamp: result.timestamp.map(Int64.init))
        case .failed where result.reason == "BadDeviceToken" || result.reason == "DeviceTokenNotForTopic":
            return .unregistered(reason: result.reason ?? "BadDeviceToken", timestamp: nil)
        case .failed: return .failed(reason: result.reason ?? "failed")
        }
    }

    private func record(_ delivery: OutboxDelivery, _ outcome: DeliveryOutcome, attempts: Int) {
        let now = GatewayClock.milliseconds()
        do {
            try store.finish(delivery, outcome, attempts: attempts, at: now)
        } catch {
            log.write("store-error", [("detail", .string("\(error)"))])
            return
        }
        let (status, reason): (DeliveryStatus, String?) =
            switch outcome {
            case .sent: (.sent, nil)
            case .failed(let reason): (.failed, reason)
            case .unregistered(let reason, _): (.unregistered, reason)
            case .expired: (.expired, "Expired")
            case .retry(_, let reason): (.queued, reason)
            }
        metrics.delivery(status, reason: reason)
        if status == .sent { metrics.latency(seconds: Double(now - delivery.acceptedAt) / 1_000) }
        var members: [(String, JSONValue)] = [
            ("push", .string(delivery.pushID)), ("device", .string(delivery.deviceID)),
            ("token", EventLog.tokenPrefix(delivery.token)), ("attempts", .number(JSONNumber(attempts))),
        ]
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
