internal import PushSealCore
internal import PushSealDelivery

/// Sends a worker's APNs deliveries through ``PushSealDelivery/APNsClient``: one HTTP/2
/// connection per APNs host, the whole batch as concurrent streams within the server's limit,
/// and Apple's retry rules.
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
        _ batch: [OutboxDelivery], record: @escaping @Sendable (OutboxDelivery, DeliveryOutcome, Int) -> Void
    ) {
        for environment in APNsEnvironment.allCases {
            let deliveries = batch.filter { $0.environment == environment }
            guard !deliveries.isEmpty else { continue }
            do {
                let client = try clients[environment] ?? client(for: environment)
                clients[environment] = client
                send(deliveries, with: client, record: record)
            } catch {
                // The deliveries stay leased, and are claimed again when the lease ends.
                log.write(
                    "apns-error", [("environment", .string(environment.rawValue)), ("detail", .string("\(error)"))])
            }
        }
    }

    private func client(for environment: APNsEnvironment) throws -> APNsClient {
        guard let endpoint = hosts[environment] else { throw GatewayError("no APNs host for \(environment)") }
        // A whole batch in flight at once, as far as the server's stream limit allows.
        return try APNsClient(
            endpoint: endpoint, tokens: tokens, concurrency: DeliveryWorkers.batchSize, policy: Self.clientPolicy,
            answerTimeout: Self.answerTimeout, caFile: caFile)
    }

    private func send(
        _ deliveries: [OutboxDelivery], with client: APNsClient,
        record: @Sendable (OutboxDelivery, DeliveryOutcome, Int) -> Void
    ) {
        let items: [DeliveryItem] = deliveries.enumerated().map { index, delivery in
            do {
                return .job(
                    try DeliveryJob(
                        line: index, deviceToken: delivery.address, headers: delivery.headers, body: delivery.body))
            } catch {
                return .invalid(line: index, reason: "\(error)")
            }
        }
        client.deliver(items) { result in
            let delivery = deliveries[result.line]
            let attempts = delivery.attempts + result.attempts
            record(delivery, Self.outcome(result, attempts: attempts, at: GatewayClock.milliseconds()), attempts)
        }
    }

    /// What a result means for the outbox: 410, `BadDeviceToken` and `DeviceTokenNotForTopic`
    /// mean the token is gone; a transient failure (429, 5xx, a lost connection) is tried again
    /// later (``DeliveryWorkers/retryTime(attempts:retryAfterSeconds:at:)``) until
    /// ``DeliveryWorkers/maximumAttempts`` requests were made.
    static func outcome(_ result: DeliveryResult, attempts: Int, at time: Int64) -> DeliveryOutcome {
        if result.status == .failed, result.transient,
            let due = DeliveryWorkers.retryTime(attempts: attempts, at: time)
        {
            return .retry(at: due, reason: result.reason ?? "transient failure")
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
}
