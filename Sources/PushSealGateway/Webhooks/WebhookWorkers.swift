internal import Dispatch
internal import PushSealCore
internal import PushSealGatewayModel
internal import PushSealGatewayStorage
internal import Synchronization

/// The workers that empty the webhook outbox: one thread per endpoint, so that an endpoint that
/// is slow or down holds only its own events, and never a push's delivery (delivery workers
/// only write the events, in their own transaction). Each round claims a few messages' worth of
/// the endpoint's oldest events, sends them in order (one per message, or up to the endpoint's
/// batch size), and stops at the first failure: the endpoint then waits out its backoff
/// (``RetrySchedule/webhookBackoff(failures:retryAfterSeconds:)``), so a receiver that is down gets one
/// request per wait, not one per event. Leases make this safe with several instances.
final class WebhookWorkers: Sendable {
    /// Messages claimed per round: with ``WebhookPoster/answerTimeout`` each, well within the lease.
    static let messagesPerRound = 5
    /// How long a round's claim lasts.
    static let leaseMilliseconds: Int64 = 60_000
    /// How long an idle endpoint waits before looking for events again.
    static let idleWait = DispatchTimeInterval.milliseconds(500)

    /// Each endpoint with its app (whose events it hears of) and its signer.
    private let endpoints: [(app: AppID, settings: WebhookSettings, signer: WebhookSigner)]
    private let store: any GatewayStore
    private let metrics: Metrics
    private let log: EventLog
    private let wake = DispatchSemaphore(value: 0)
    private let stopping = Atomic<Bool>(false)
    private let running = DispatchGroup()

    /// Workers for `endpoints` (each with its app and signer) over `store`.
    init(
        endpoints: [(app: AppID, settings: WebhookSettings, signer: WebhookSigner)], store: any GatewayStore,
        metrics: Metrics, log: EventLog
    ) {
        self.endpoints = endpoints
        self.store = store
        self.metrics = metrics
        self.log = log
    }

    /// Workers for every endpoint `webhooks` configures, each of its app, over `store`, each
    /// endpoint's URL checked and its signing secrets read; none when there is no endpoint.
    /// - Throws: `GatewayError` naming the endpoint whose URL or secret is wrong.
    static func configured(
        _ webhooks: [(app: AppID, settings: WebhookSettings)], store: any GatewayStore, metrics: Metrics,
        log: EventLog
    ) throws(GatewayError) -> WebhookWorkers? {
        var signed: [(app: AppID, settings: WebhookSettings, signer: WebhookSigner)] = []
        for (app, settings) in webhooks {
            if let failure = WebhookPoster.setupFailure(settings) {
                throw GatewayError("webhooks \(settings.name): \(failure)")
            }
            do {
                signed.append((app, settings, try WebhookSigner(secretFiles: settings.secretFiles)))
            } catch {
                throw GatewayError("webhooks \(settings.name): \(error)")
            }
        }
        return signed.isEmpty
            ? nil : WebhookWorkers(endpoints: signed, store: store, metrics: metrics, log: log)
    }

    /// Starts a thread per endpoint.
    func start() {
        for (app, settings, signer) in endpoints {
            running.enter()
            DispatchQueue(label: "pushseal-gateway.webhook.\(settings.name)").async { [self] in
                defer { running.leave() }
                run(settings, of: app, poster: WebhookPoster(settings, signer: signer))
            }
        }
    }

    /// Stops claiming: each endpoint's worker ends after its request in flight. Returns at once;
    /// ``waitUntilStopped(before:)`` waits for them.
    func beginStopping() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        for _ in endpoints { wake.signal() }
    }

    /// Waits until every endpoint's worker has ended, or `deadline`; events claimed and not sent
    /// are claimed again once their lease ends.
    func waitUntilStopped(before deadline: ContinuousClock.Instant) {
        _ = running.wait(timeout: .at(deadline))
    }

    private var isStopping: Bool { stopping.load(ordering: .sequentiallyConsistent) }

    private func run(_ settings: WebhookSettings, of app: AppID, poster: WebhookPoster) {
        var poster = poster
        let owner = "\(RandomUUID.make())-\(settings.name)"
        while !isStopping {
            let now = GatewayClock.milliseconds()
            let claim: WebhookClaim
            do {
                claim = try store.claimWebhookEvents(
                    endpoint: settings.name, in: app, limit: settings.batchSize * Self.messagesPerRound, at: now,
                    expireBefore: now - Int64(settings.retryHours) * 3_600_000,
                    leaseMilliseconds: Self.leaseMilliseconds, owner: owner)
            } catch {
                log.storeError(error, counting: metrics)
                _ = wake.wait(timeout: .now() + 1)
                continue
            }
            if claim.expired > 0 {
                metrics.webhookEventsExpired(settings.name, claim.expired)
                log.write(
                    "webhook-expired",
                    [("endpoint", .string(settings.name)), ("events", .number(JSONNumber(claim.expired)))])
            }
            if claim.events.isEmpty {
                let wait =
                    claim.waitsUntil.map { DispatchTimeInterval.milliseconds(Int(min($0 - now, 1_000))) }
                    ?? Self.idleWait
                _ = wake.wait(timeout: .now() + (claim.disabled ? .seconds(5) : wait))
                continue
            }
            send(claim.events, settings, of: app, &poster)
        }
    }

    /// Sends `events` (of `app`) in messages of the endpoint's batch size, in order, until one fails.
    private func send(
        _ events: [QueuedWebhookEvent], _ settings: WebhookSettings, of app: AppID, _ poster: inout WebhookPoster
    ) {
        var rest = events[...]
        while !rest.isEmpty {
            let message = Array(rest.prefix(settings.batchSize))
            rest = rest.dropFirst(message.count)
            let (id, body) = WebhookMessage.compose(message, batched: settings.batchSize > 1)
            let attempt = poster.post(id: id, body: body)
            let now = GatewayClock.milliseconds()
            let state: WebhookEndpointState
            do {
                state = try store.recordWebhookAttempt(
                    attempt, endpoint: settings.name, in: app, sent: message.map(\.rowID),
                    unsent: attempt == .delivered && !isStopping ? [] : rest.map(\.rowID), at: now,
                    disableBefore: now - Int64(settings.disableAfterHours) * 3_600_000)
            } catch {
                log.storeError(error, counting: metrics)
                return
            }
            metrics.webhookRequest(settings.name, delivered: attempt == .delivered)
            guard case .failed(let reason, _) = attempt else {
                if isStopping { return }
                continue
            }
            log.write(
                "webhook-failed",
                [
                    ("endpoint", .string(settings.name)), ("message", .string(id)),
                    ("events", .number(JSONNumber(message.count))), ("reason", .string(reason)),
                    ("failures", .number(JSONNumber(state.failures))),
                    ("retry_at", .string(RFC3339.text(state.retryAt ?? now))),
                ])
            if state.newlyDisabled {
                log.write(
                    "webhook-disabled",
                    [
                        ("endpoint", .string(settings.name)), ("failures", .number(JSONNumber(state.failures))),
                        (
                            "detail",
                            .string("failing for over \(settings.disableAfterHours) h; webhook enable restores it")
                        ),
                    ])
            }
            return
        }
    }
}
