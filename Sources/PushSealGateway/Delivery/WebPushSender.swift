internal import PushSealCore
internal import PushSealDelivery
internal import PushSealGatewayModel

/// Sends a worker's Web Push deliveries through ``PushSealDelivery/WebPushClient``, each
/// push-service origin in a lane of its own (``OriginLanes``), each delivery's outcome recorded as
/// soon as its push service answers. The worker keeps claiming while lanes work, so a push service
/// that answers slowly, or one request at a time, holds only its own deliveries: another origin's
/// delivery leaves as soon as it is claimed, and what a busy lane has no room for goes back to the
/// outbox, due once that lane should have drained, without counting as an attempt.
struct WebPushSender: OutboxSender {
    /// How long a request waits for the push service's answer.
    static let answerTimeout = Duration.seconds(10)
    /// How often a worker whose lanes are still working claims again.
    static let claimInterval = Duration.milliseconds(100)

    private let clients: [AppID: WebPushClient]
    private let log: EventLog
    private let lanes: OriginLanes

    /// A sender through each app's client in `clients`, which signs with the app's VAPID key (made
    /// with no retries of its own: the outbox retries), logging to `log` what it cannot send.
    init(clients: [AppID: WebPushClient], log: EventLog) {
        self.clients = clients
        self.log = log
        lanes = OriginLanes()
    }

    /// A delivery ready for its push service: the request, and the client of its app.
    private struct Pending {
        let delivery: OutboxDelivery
        let job: WebPushJob
        let client: WebPushClient
    }

    mutating func send(
        _ feed: DeliveryFeed, record: @escaping @Sendable (OutboxDelivery, DeliveryOutcome, Int) -> Void
    ) {
        while true {
            let batch = feed.nextBatch()
            if !batch.isEmpty {
                send(batch, isStopping: feed.isStopping, record: record)
                continue
            }
            // Nothing due: wait for the lanes a while, and claim again while they work.
            if lanes.waitUntilIdle(atMost: feed.isStopping() ? .seconds(3_600) : Self.claimInterval) { return }
            feed.claimAgain()
        }
    }

    /// Hands `batch` to its origins' lanes; what a lane has no room for is deferred. A delivery
    /// of an app without `webpush` here is held (``DeliveryOutcome/notConfigured(acceptedAt:at:)``);
    /// a stored row no request can be made of (an endpoint or body no API would have stored) fails
    /// `InvalidDelivery`, logged, as the workers fail a row with a defect.
    private func send(
        _ batch: [OutboxDelivery], isStopping: @escaping @Sendable () -> Bool,
        record: @escaping @Sendable (OutboxDelivery, DeliveryOutcome, Int) -> Void
    ) {
        let now = GatewayClock.milliseconds()
        var byOrigin: [String: [Pending]] = [:]
        for delivery in batch {
            guard let client = clients[delivery.app] else {
                record(delivery, .notConfigured(acceptedAt: delivery.acceptedAt, at: now), delivery.attempts)
                continue
            }
            do {
                let job = try WebPushJob(
                    line: 0, endpoint: delivery.address, body: delivery.body,
                    ttl: WebPushHeaders.ttl(expiration: delivery.expiration, now: now / 1_000),
                    urgency: WebPushHeaders.urgency(delivery.headers), topic: WebPushHeaders.topic(delivery.headers))
                byOrigin[job.origin, default: []].append(Pending(delivery: delivery, job: job, client: client))
            } catch {
                log.write(
                    "invalid-delivery",
                    [
                        ("app", .string(delivery.app.name)), ("push", .string(delivery.pushID)),
                        ("detail", .string("\(error)")),
                    ])
                record(delivery, .failed(reason: .gateway(.invalidDelivery)), delivery.attempts)
            }
        }
        for (origin, pending) in byOrigin {
            let admitted = lanes.admit(pending.map(Self.owner), to: origin, at: now) { taken, answered in
                // Each app's deliveries go through its client, which signs with its VAPID key.
                var byApp: [AppID: [Int]] = [:]
                for index in taken { byApp[pending[index].delivery.app, default: []].append(index) }
                for group in byApp.values {
                    let results = pending[group[0]].client.deliverOnThisThread(
                        group.map { pending[$0].job }, isCancelled: isStopping)
                    let time = GatewayClock.milliseconds()
                    for (index, result) in zip(group, results) {
                        let delivery = pending[index].delivery
                        let attempts = delivery.attempts + result.attempts
                        record(delivery, Self.outcome(result, attempts: attempts, at: time), attempts)
                        answered(index)
                    }
                }
            }
            for (index, until) in admitted.deferred {
                let delivery = pending[index].delivery
                record(delivery, .retry(at: until, reason: .gateway(.pushServiceBusy)), delivery.attempts)
            }
        }
    }

    /// Whose `pending` is, as the lanes share themselves out: its app's user (`app/user`: an app
    /// name holds no `/`), or its device when that has none (`app#device`: deleted since the
    /// claim), and its push.
    private static func owner(_ pending: Pending) -> OriginLanes.Owner {
        let delivery = pending.delivery
        let user = delivery.user.map { "\(delivery.app.name)/\($0)" } ?? "\(delivery.app.name)#\(delivery.deviceID)"
        return OriginLanes.Owner(user: user, push: delivery.pushID)
    }

    /// What a push service's answer means for the outbox: 2xx sent; 404 and 410 gone (the
    /// subscription is marked unregistered, as APNs' 410 marks a token); a job left unsent (the
    /// worker stopped) due again at once; 429, 5xx and a lost connection tried again later, after
    /// the `Retry-After` the service gave (``RetrySchedule/retryWindow(attempts:retryAfterSeconds:at:)``);
    /// any other answer fails for good with the service's status and words.
    static func outcome(_ result: WebPushResult, attempts: Int, at time: Int64) -> DeliveryOutcome {
        let reason = DeliveryReason(result)
        switch result.status {
        case .sent: return .sent(apnsID: nil)
        case .gone: return .unregistered(reason: reason, timestamp: nil)
        case .failed where result.transient && result.attempts == 0:
            return .retry(at: time, reason: .gateway(.notSent))
        case .failed:
            if result.transient,
                let window = RetrySchedule.retryWindow(
                    attempts: attempts, retryAfterSeconds: result.retryAfterSeconds, at: time)
            {
                return .retry(at: .random(in: window), reason: reason)
            }
            return .failed(reason: reason)
        }
    }
}
