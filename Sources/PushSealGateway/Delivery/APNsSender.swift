internal import PushSealCore
internal import PushSealDelivery
internal import PushSealGatewayModel

/// Sends a worker's APNs deliveries through ``PushSealDelivery/APNsClient``: one HTTP/2
/// connection per key and APNs host (``APNsKeyRing``), fed a delivery each time a stream frees (up to the server's limit),
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

    private let keys: APNsKeyRing
    private let log: EventLog
    private var clients: [APNsKeyRing.Route: APNsClient] = [:]

    /// A sender through `keys`' routes: each delivery signed with its app's key for its topic.
    init(keys: APNsKeyRing, log: EventLog) {
        self.keys = keys
        self.log = log
    }

    /// While deliveries of another route wait, the current route's stream takes this many more
    /// offers of the feed before it ends and lets them go: one app's backlog (or production's
    /// beside sandbox's) holds another's deliveries for about one stream's worth, and a switch,
    /// which waits for the requests in flight, comes at most once per this many deliveries.
    static let switchAfter = DeliveryWorkers.streams

    mutating func send(
        _ feed: DeliveryFeed, record: @escaping @Sendable (OutboxDelivery, DeliveryOutcome, Int) -> Void
    ) {
        // The feed streams into the connection of one route (a key, host and environment) at a
        // time. Deliveries of other routes (another app's, sandbox beside production) wait, by
        // route, until the stream has taken ``switchAfter`` more offers; then it ends, and the
        // longest-waiting route streams next, its waiting deliveries first. A delivery with no
        // route (its topic has no key in this configuration) is held at once.
        let (keys, log) = (keys, log)
        func routed(_ delivery: OutboxDelivery) -> APNsKeyRing.Route? {
            Self.route(delivery, keys: keys, log: log, record: record)
        }
        var waiting: [APNsKeyRing.Route: [OutboxDelivery]] = [:]
        var order: [APNsKeyRing.Route] = []
        var feedEnded = false
        while true {
            if order.isEmpty {
                guard !feedEnded, let delivery = feed.next() else { return }
                guard let route = routed(delivery) else { continue }
                (waiting[route], order) = ([delivery], [route])
            }
            let route = order.removeFirst()
            var queued = (waiting.removeValue(forKey: route) ?? []).makeIterator()
            var offersWhileOthersWait = 0
            send(route: route, record: record, wake: feedEnded ? nil : feed.landed) {
                if let delivery = queued.next() { return .delivery(delivery) }
                while !feedEnded {
                    if !order.isEmpty {
                        if offersWhileOthersWait >= Self.switchAfter { return .ended }
                        offersWhileOthersWait += 1
                    }
                    switch feed.offer() {
                    case .delivery(let delivery):
                        guard let next = routed(delivery) else { continue }
                        if next == route { return .delivery(delivery) }
                        if waiting[next] == nil { order.append(next) }
                        waiting[next, default: []].append(delivery)
                    case .claiming: return .claiming
                    case .ended: feedEnded = true
                    }
                }
                return .ended
            }
        }
    }

    /// The route of `delivery` in `keys`; nil, with the delivery recorded (and logged) as held
    /// (``DeliveryOutcome/notConfigured(acceptedAt:at:)``), when the configuration has no key for
    /// its topic or no host for its environment.
    private static func route(
        _ delivery: OutboxDelivery, keys: APNsKeyRing, log: EventLog,
        record: @Sendable (OutboxDelivery, DeliveryOutcome, Int) -> Void
    ) -> APNsKeyRing.Route? {
        if let route = keys.route(delivery) { return route }
        log.write(
            "delivery-not-configured",
            [("app", .string(delivery.app.name)), ("push", .string(delivery.pushID))])
        record(
            delivery, .notConfigured(acceptedAt: delivery.acceptedAt, at: GatewayClock.milliseconds()),
            delivery.attempts)
        return nil
    }

    /// Sends through `route`'s connection what `next` offers, one as each stream frees, recording
    /// each outcome as its answer comes (and reading answers while a claim is under way, until
    /// `wake` says it landed). When the connection's client cannot be made, nothing is taken: the
    /// deliveries stay leased, and are claimed again when the lease ends.
    private mutating func send(
        route: APNsKeyRing.Route, record: @Sendable (OutboxDelivery, DeliveryOutcome, Int) -> Void,
        wake: InputWake?, next: @escaping () -> DeliveryFeed.Offer
    ) {
        let tokens = keys.signers[route.signer].tokens
        let client: APNsClient
        do {
            client =
                try clients[route]
                ?? APNsClient(
                    endpoint: route.endpoint, tokens: tokens, concurrency: DeliveryWorkers.streams,
                    policy: Self.clientPolicy, answerTimeout: Self.answerTimeout, caFile: route.caFile)
            clients[route] = client
        } catch {
            log.write(
                "apns-error",
                [
                    ("environment", .string(route.environment.rawValue)),
                    ("key_id", .string(keys.signers[route.signer].keyID)), ("detail", .string("\(error)")),
                ])
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
        client.deliver(items, inInputOrder: false, inputWake: wake) { result in
            guard let delivery = inFlight.removeValue(forKey: result.line) else { return }
            let attempts = Self.countedAttempts(result, before: delivery.attempts)
            if Self.providerTokenRefusal(result) != nil { _ = try? tokens.renewAfterRefusal() }
            let outcome = Self.outcome(
                result, attempts: attempts, acceptedAt: delivery.acceptedAt, at: GatewayClock.milliseconds())
            record(delivery, outcome, attempts)
        }
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
