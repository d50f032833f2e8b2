internal import PushSealDelivery

/// Sends a worker's Web Push deliveries through ``PushSealDelivery/WebPushClient``: one
/// connection per push service, every push service on a thread of its own, each delivery's
/// outcome recorded as soon as its push service is done, so that a slow or dead one holds only
/// its own deliveries.
struct WebPushSender: OutboxSender {
    /// How long a request waits for the push service's answer.
    static let answerTimeout = Duration.seconds(10)

    private let client: WebPushClient

    /// A sender through `client` (made with no retries of its own: the outbox retries).
    init(client: WebPushClient) {
        self.client = client
    }

    mutating func send(
        _ feed: DeliveryFeed, record: @escaping @Sendable (OutboxDelivery, DeliveryOutcome, Int) -> Void
    ) {
        while case let batch = feed.nextBatch(), !batch.isEmpty { send(batch, record: record) }
    }

    private func send(
        _ batch: [OutboxDelivery], record: @escaping @Sendable (OutboxDelivery, DeliveryOutcome, Int) -> Void
    ) {
        let now = GatewayClock.milliseconds()
        var jobs: [WebPushJob] = []
        var sending: [OutboxDelivery] = []
        for delivery in batch {
            do {
                jobs.append(
                    try WebPushJob(
                        line: jobs.count, endpoint: delivery.address, body: delivery.body,
                        ttl: WebPushHeaders.ttl(expiration: delivery.expiration, now: now / 1_000),
                        urgency: WebPushHeaders.urgency(delivery.headers), topic: WebPushHeaders.topic(delivery.headers)
                    ))
                sending.append(delivery)
            } catch {
                record(delivery, .failed(reason: "\(error)"), delivery.attempts)
            }
        }
        let deliveries = sending
        client.deliver(jobs) { index, result in
            let delivery = deliveries[index]
            let attempts = delivery.attempts + result.attempts
            record(delivery, Self.outcome(result, attempts: attempts, at: GatewayClock.milliseconds()), attempts)
        }
    }

    /// What a push service's answer means for the outbox: 2xx sent; 404 and 410 gone (the
    /// subscription is marked unregistered, as APNs' 410 marks a token); 429, 5xx and a lost
    /// connection tried again later, after the `Retry-After` the service gave
    /// (``DeliveryWorkers/retryTime(attempts:retryAfterSeconds:at:)``); any other answer fails
    /// for good with the service's status and words.
    static func outcome(_ result: WebPushResult, attempts: Int, at time: Int64) -> DeliveryOutcome {
        let reason = result.reason ?? result.httpStatus.map { "HTTP \($0)" } ?? "failed"
        switch result.status {
        case .sent: return .sent(apnsID: nil)
        case .gone: return .unregistered(reason: reason, timestamp: nil)
        case .failed:
            if result.transient,
                let due = DeliveryWorkers.retryTime(
                    attempts: attempts, retryAfterSeconds: result.retryAfterSeconds, at: time)
            {
                return .retry(at: due, reason: reason)
            }
            return .failed(reason: reason)
        }
    }
}
