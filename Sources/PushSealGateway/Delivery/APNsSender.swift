internal import PushSealCore
internal import PushSealDelivery
internal import PushSealGatewayModel

/// Sends a worker's APNs deliveries through ``PushSealDelivery/APNsClient``: one HTTP/2
/// connection per APNs host, fed a delivery each time a stream frees (up to the server's limit),
/// every outcome recorded as its answer comes, and Apple's retry rules.
struct APNsSender: OutboxSender {
    /// How long a request waits for APNs' answer, and requests for a stream, before the
    /// connection is given up: APNs answers in milliseconds, and a worker's batch (and a stop)
    /// waits on the slowest request. With the one retry, a batch against a peer that answers
    /// nothing ends within about 25 s.
    static let answerTimeout = Duration.seconds(10)
    /// The client's own retries are few and short: longer waits belong to the outbox, which keeps
    /// the delivery queued (and its worker free) until its next attempt.
    static let clientPolicy: RetryPolicy = {
        var policy = RetryPolicy()
        policy.serverRetries = 1
        policy.throttleRetries = 1
        return policy
    }()

    private let tokens: ProviderTokenIssuer
    private let hosts: [APNsEnvironment: APNsEndpoint]
    private let caFile: String?
    private let log: EventLog
    private var clients: [APNsEnvironment: APNsClient] = [:]

    /// A sender with `tokens` to `hosts`, trusting `caFile` when given.
    init(tokens: ProviderTokenIssuer, hosts: [APNsEnvironment: APNsEndpoint], caFile: String?, log: EventLog) {
        self.tokens = tokens
        self.hosts = hosts
        self.caFile = caFile
        self.log = log
    }

    mutating func send(
        _ feed: DeliveryFeed, record: @escaping @Sendable (OutboxDelivery, DeliveryOutcome, Int) -> Void
    ) {
        // The feed streams into the connection of the first delivery's environment; the others'
        // deliveries (sandbox beside production) are set aside, and go once the feed is empty.
        // (A delivery without an environment is a defect the worker fails before it gets here.)
        var setAside: [OutboxDelivery] = []
        guard let first = feed.next(), let streamed = first.environment else { return }
        var pending: OutboxDelivery? = first
        send(environment: streamed, record: record, wake: feed.landed) {
            if let delivery = pending {
                pending = nil
                return .delivery(delivery)
            }
            while true {
                switch feed.offer() {
                case .delivery(let delivery) where delivery.environment == streamed: return .delivery(delivery)
                case .delivery(let delivery): setAside.append(delivery)
                case .claiming: return .claiming
                case .ended: return .ended
                }
            }
        }
        for environment in APNsEnvironment.allCases where environment != streamed {
            var deliveries = setAside.filter { $0.environment == environment }.makeIterator()
            send(environment: environment, record: record, wake: nil) {
                deliveries.next().map { .delivery($0) } ?? .ended
            }
        }
    }

    /// Sends to `environment`'s host what `next` offers, one as each stream frees, recording
    /// each outcome as its answer comes (and reading answers while a claim is under way, until
    /// `wake` says it landed). When the host's client cannot be made, nothing is taken: the
    /// deliveries stay leased, and are claimed again when the lease ends.
    private mutating func send(
        environment: APNsEnvironment, record: @Sendable (OutboxDelivery, DeliveryOutcome, Int) -> Void,
        wake: InputWake?, next: @escaping () -> DeliveryFeed.Offer
    ) {
        let client: APNsClient
        do {
            client = try clients[environment] ?? makeClient(for: environment)
            clients[environment] = client
        } catch {
            log.write("apns-error", [("environment", .string(environment.rawValue)), ("detail", .string("\(error)"))])
            return
        }
        var inFlight: [Int: OutboxDelivery] = [:]
        var line = 0
        let items = sequence(state: ()) { _ -> DeliveryItem? in
            let delivery: OutboxDelivery
            switch next() {
            case .delivery(let offered): delivery = offered
            case .claiming: return .notYet
            case .ended: return nil
            }
            defer { line += 1 }
            inFlight[line] = delivery
            do {
                return .job(
                    try DeliveryJob(
                        line: line, deviceToken: delivery.address, headers: delivery.headers, body: delivery.body))
            } catch {
                return .invalid(line: line, reason: "\(error)")
            }
        }
        let tokens = tokens
        client.deliver(items, inInputOrder: false, inputWake: wake) { result in
            guard let delivery = inFlight.removeValue(forKey: result.line) else { return }
            let attempts = Self.countedAttempts(result, before: delivery.attempts)
            if Self.providerTokenRefusal(result) != nil { _ = try? tokens.renewAfterRefusal() }
            let outcome = Self.outcome(
                result, attempts: attempts, acceptedAt: delivery.acceptedAt, at: GatewayClock.milliseconds())
            record(delivery, outcome, attempts)
        }
    }

    private func makeClient(for environment: APNsEnvironment) throws -> APNsClient {
        guard let endpoint = hosts[environment] else { throw GatewayError("no APNs host for \(environment)") }
        return try APNsClient(
            endpoint: endpoint, tokens: tokens, concurrency: DeliveryWorkers.streams, policy: Self.clientPolicy,
            answerTimeout: Self.answerTimeout, caFile: caFile)
    }

    /// APNs' answers that refuse the provider token rather than the push: the key is revoked, not
    /// yet active, or its ids are wrong, and every delivery would fail alike until it is fixed.
    static let providerTokenRefusals: Set<String> = ["InvalidProviderToken", "ExpiredProviderToken"]

    /// The reason, when `result` failed because APNs refused the provider token.
    static func providerTokenRefusal(_ result: DeliveryResult) -> String? {
        guard result.status == .failed, let reason = result.reason, providerTokenRefusals.contains(reason) else {
            return nil
        }
        return reason
    }

    /// A delivery's count of attempts once `result` is in, from `before`: the requests APNs judged.
    /// A request refused for the provider token is not counted: it said nothing of the delivery,
    /// and a hold of hours must not use up the attempts a later transient failure may take.
    static func countedAttempts(_ result: DeliveryResult, before: Int) -> Int {
        providerTokenRefusal(result) == nil ? before + result.attempts : before
    }

    /// What a result means for the outbox: 410, `BadDeviceToken` and `DeviceTokenNotForTopic`
    /// mean the token is gone; a transient failure (429, 5xx, a lost connection) is tried again
    /// later (``RetrySchedule/retryWindow(attempts:retryAfterSeconds:at:)``) until
    /// ``RetrySchedule/maximumAttempts`` requests were made; a refused provider token holds the
    /// delivery queued (``RetrySchedule/heldRetryWindow(acceptedAt:at:)``) until the key
    /// is fixed, its expiration passes, or ``RetrySchedule/providerTokenHold`` ends.
    static func outcome(_ result: DeliveryResult, attempts: Int, acceptedAt: Int64, at time: Int64)
        -> DeliveryOutcome
    {
        if result.status == .failed, result.transient,
            let window = RetrySchedule.retryWindow(attempts: attempts, at: time)
        {
            return .retry(at: .random(in: window), reason: DeliveryReason(result, otherwise: "transient failure"))
        }
        if let reason = providerTokenRefusal(result),
            let window = RetrySchedule.heldRetryWindow(acceptedAt: acceptedAt, at: time)
        {
            return .retry(at: .random(in: window), reason: .apns(reason))
        }
        switch result.status {
        case .sent: return .sent(apnsID: result.apnsID)
        case .unregistered:
            return .unregistered(
                reason: DeliveryReason(result, otherwise: "Unregistered"), timestamp: result.timestamp.map(Int64.init))
        case .failed where result.reason == "BadDeviceToken" || result.reason == "DeviceTokenNotForTopic":
            return .unregistered(reason: DeliveryReason(result, otherwise: "BadDeviceToken"), timestamp: nil)
        case .failed: return .failed(reason: DeliveryReason(result, otherwise: "failed"))
        }
    }
}
