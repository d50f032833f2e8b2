internal import PushSealCore
internal import PushSealGatewayModel
internal import PushSealGatewayStorage
internal import Synchronization

/// The gateway's counters and histograms, exported in Prometheus' text format at `/metrics` with
/// the store's gauges (queue depth and age, devices by state) and the build's identity
/// (gateway-v1.md, "Operations"). Every label takes its values from a closed set.
final class Metrics: Sendable {
    private struct State {
        var pushesAccepted: [AppID: Int] = [:]
        var outcomes: [AppID: [OutcomeLabel: Int]] = [:]
        var acceptToAPNs = Histogram()
        var earlyCloses: [ConnectionGuard.Cause: Int] = [:]
        var requests: [String: Int] = [:]
        var requestDurations: [String: Histogram] = [:]
        var retentionDeleted: [String: Int] = [:]
        var webhookRequests: [String: (delivered: Int, failed: Int)] = [:]
        var webhookEventsExpired: [String: Int] = [:]
        var rateLimited: [RateLimit: Int] = [:]
        var webPushReceived: [Int: Int] = [:]
        var fetches: [Int: Int] = [:]
        var receipts: [ReceiptCount: Int] = [:]
        var receiptsDegraded: [ReceiptReason: Int] = [:]
        var sentToDisplayed: [AppID: Histogram] = [:]
        var claims: [ClaimLabel: Int] = [:]
        var storeErrors: [StoreFailureCause: Int] = [:]
        var draining = false
    }

    /// A receipts counter's labels: the delivery's app and kind, and the outcome reported.
    private struct ReceiptCount: Hashable {
        let app: AppID
        let kind: DeliveryKind
        let outcome: String
    }

    /// A degraded receipts counter's labels: the delivery's app, and the reason reported.
    private struct ReceiptReason: Hashable {
        let app: AppID
        let reason: String
    }

    private let state = Mutex(State())
    /// The configured apps, the values of the `app` label, in configuration order.
    private let apps: [AppID]
    /// The same, to check a count's app against at each count.
    private let appSet: Set<AppID>
    /// The configured webhook endpoints' names, the values of the `endpoint` label.
    private let webhookEndpoints: [String]

    /// Metrics of a gateway serving `apps`, whose webhook endpoints are `webhookEndpoints`.
    init(apps: [AppID] = [.default], webhookEndpoints: [String] = []) {
        self.apps = apps
        appSet = Set(apps)
        self.webhookEndpoints = webhookEndpoints
    }

    /// Counts a store failure of `cause`, wherever it happened (a request, a worker, the
    /// heartbeat, the sweep).
    func storeError(_ cause: StoreFailureCause) { state.withLock { $0.storeErrors[cause, default: 0] += 1 } }

    /// Counts a push accepted in `app`.
    func pushAccepted(in app: AppID) {
        guard appSet.contains(app) else { return }
        state.withLock { $0.pushesAccepted[app, default: 0] += 1 }
    }

    /// Counts an attempt's outcome in `app` by status (`queued` when it is to be tried again) and
    /// the reason's label (`DeliveryReason.label`).
    func delivery(_ status: DeliveryStatus, reason: DeliveryReason?, in app: AppID) {
        guard appSet.contains(app) else { return }
        state.withLock { $0.outcomes[app, default: [:]][OutcomeLabel(status, reason: reason), default: 0] += 1 }
    }

    /// Counts a claim of `kind`'s workers that asked for `limit` deliveries and found `found`.
    func claim(_ kind: DeliveryKind, found: Int, of limit: Int) {
        let label = ClaimLabel(kind: kind, found: found == 0 ? .none : found < limit ? .some : .full)
        state.withLock { $0.claims[label, default: 0] += 1 }
    }

    /// Counts a connection closed for its slowness, or to make room.
    func connectionClosedEarly(_ cause: ConnectionGuard.Cause) {
        state.withLock { $0.earlyCloses[cause, default: 0] += 1 }
    }

    /// Records the time from acceptance to APNs' answer for a sent delivery.
    func latency(seconds: Double) { state.withLock { $0.acceptToAPNs.observe(seconds) } }

    /// Counts an answered request of `route` (the path's template, as `/v1/devices/{device_id}`,
    /// or `other`) and how long it took.
    func request(method: String, route: String, status: Int, seconds: Double) {
        let key = "method=\"\(method)\",route=\"\(route)\",status=\"\(status)\""
        state.withLock { state in
            state.requests[key, default: 0] += 1
            state.requestDurations["route=\"\(route)\"", default: Histogram()].observe(seconds)
        }
    }

    /// Counts rows the retention sweep deleted from `table`.
    func retentionDeleted(_ count: Int, from table: String) {
        state.withLock { $0.retentionDeleted[table, default: 0] += count }
    }

    /// Counts a request to webhook `endpoint` and whether it was delivered (a 2xx answer).
    func webhookRequest(_ endpoint: String, delivered: Bool) {
        state.withLock { state in
            var counts = state.webhookRequests[endpoint] ?? (0, 0)
            if delivered { counts.delivered += 1 } else { counts.failed += 1 }
            state.webhookRequests[endpoint] = counts
        }
    }

    /// Counts webhook events of `endpoint` that ended failed once their retry window passed.
    func webhookEventsExpired(_ endpoint: String, _ count: Int) {
        state.withLock { $0.webhookEventsExpired[endpoint, default: 0] += count }
    }

    /// Counts a request refused 429 for a token over its `limit`.
    func rateLimited(_ limit: RateLimit) { state.withLock { $0.rateLimited[limit, default: 0] += 1 } }

    /// Counts a message a Web Push sender posted to the relay, by the status it was answered.
    func webPushReceived(_ status: Int) { state.withLock { $0.webPushReceived[status, default: 0] += 1 } }

    /// Counts a request for content kept to fetch, by the status it was answered (200 or 404).
    func fetchServed(_ status: Int) { state.withLock { $0.fetches[status, default: 0] += 1 } }

    /// Counts a receipt taken at `time` for `delivery` that reported `outcome`, and, degraded,
    /// `reason` (one of `ReceiptOutcome.degradeReasons`: a closed label set); when it `changed`
    /// the delivery's display to `displayed`, observes the seconds since the delivery was sent.
    func receiptTaken(_ delivery: ReceiptedDelivery, outcome: ReceiptOutcome, changed: Bool, at time: Int64) {
        let app = delivery.app
        guard appSet.contains(app) else { return }
        state.withLock {
            $0.receipts[ReceiptCount(app: app, kind: delivery.kind, outcome: outcome.name), default: 0] += 1
            if let reason = outcome.reason {
                $0.receiptsDegraded[ReceiptReason(app: app, reason: reason.rawValue), default: 0] += 1
            }
            if changed, outcome == .displayed, let seconds = delivery.secondsSinceSent(at: time) {
                $0.sentToDisplayed[app, default: Histogram(bounds: Histogram.deviceBounds)].observe(seconds)
            }
        }
    }

    /// Marks the gateway as draining (after SIGTERM).
    func startDraining() { state.withLock { $0.draining = true } }

    /// Whether the gateway is draining.
    var isDraining: Bool { state.withLock { $0.draining } }

    /// Pushes accepted, and attempts' outcomes by status, since the start (the `stopped` line).
    func totals() -> (accepted: Int, outcomes: [String: Int]) {
        state.withLock { state in
            var byStatus: [String: Int] = [:]
            for (outcome, count) in state.outcomes.values.joined() {
                byStatus[outcome.status == .queued ? "retried" : outcome.status.rawValue, default: 0] += count
            }
            return (state.pushesAccepted.values.reduce(0, +), byStatus)
        }
    }

    /// The text exposition, with the store's `statistics`, the count of provider tokens made, the
    /// sealers' `agreements` (none in tests of the metrics alone) and the store's own counters
    /// (`storeMetrics`: on SQLite, what its writer did).
    func exposition(
        _ statistics: GatewayStatistics?, providerTokens: Int, agreements: HPKE.SenderAgreements? = nil,
        storeWritable: Bool = true, store storeMetrics: [StoreMetric] = [], now: Int64
    ) -> String {
        let state = state.withLock { $0 }
        let name = "pushseal_gateway_"
        var lines = Self.family(
            name + "build_info", "gauge", "The running build: 1, labelled with its version.",
            ["{version=\"\(GatewayVersion.number)\",api=\"\(GatewayVersion.api)\"} 1"])
        lines += Self.family(
            name + "draining", "gauge", "1 once SIGTERM started the drain.", [" \(state.draining ? 1 : 0)"])
        lines += Self.family(
            name + "store_writable", "gauge",
            "1 while the database's last write passed (on a quiet gateway, the heartbeat's, every 10 s); 0 when the disk is full, fails, or does not answer.",
            [" \(storeWritable ? 1 : 0)"])
        lines += Self.family(
            name + "store_errors_total", "counter",
            "Failures of the database, wherever they happened, by cause (gateway-v1.md, \"Storage faults\").",
            StoreFailureCause.allCases.map { "{cause=\"\($0.rawValue)\"} \(state.storeErrors[$0] ?? 0)" })
        lines += Self.family(
            name + "pushes_accepted_total", "counter", "Pushes accepted by POST /v1/pushes, by app.",
            apps.map { "{app=\"\($0)\"} \(state.pushesAccepted[$0] ?? 0)" })
        lines += Self.family(
            name + "deliveries_total", "counter",
            "Delivery attempts' outcomes, by app, status (queued: to be tried again) and reason.",
            apps.flatMap { app in
                let outcomes = state.outcomes[app] ?? [:]
                return outcomes.keys.sorted().map {
                    "{app=\"\(app)\",status=\"\($0.status.rawValue)\",reason=\"\($0.reason)\"} \(outcomes[$0] ?? 0)"
                }
            })
        lines += Self.family(
            name + "accept_to_apns_seconds", "histogram", "From acceptance to APNs' 200.",
            state.acceptToAPNs.samples())
        lines += Self.family(
            name + "claims_total", "counter",
            "Claims of due deliveries from the outbox, by kind and by what they found: none, some, or as many as asked.",
            DeliveryKind.allCases.flatMap { kind in
                ClaimLabel.Found.allCases.map { found in
                    "{kind=\"\(kind.rawValue)\",found=\"\(found.rawValue)\"} "
                        + "\(state.claims[ClaimLabel(kind: kind, found: found)] ?? 0)"
                }
            })
        lines += Self.family(
            name + "provider_tokens_total", "counter",
            "APNs provider tokens made (one per 55 minutes, and after ExpiredProviderToken).", [" \(providerTokens)"])
        if let agreements {
            lines += Self.family(
                name + "sender_agreements_total", "counter",
                "APNs seals by where the sender key's agreement with the device came from: computed, or reused.",
                ["{source=\"computed\"} \(agreements.computed)", "{source=\"reused\"} \(agreements.reused)"])
            lines += Self.family(
                name + "sender_agreements_held", "gauge",
                "Agreements of the sender keys with devices held in memory, at most \(agreements.capacity).",
                [" \(agreements.count)"])
        }
        lines += Self.family(
            name + "http_connections_closed_total", "counter", "Connections the gateway closed early, by cause.",
            ConnectionGuard.Cause.allCases.map { "{cause=\"\($0.rawValue)\"} \(state.earlyCloses[$0] ?? 0)" })
        lines += Self.family(
            name + "http_requests_total", "counter", "Requests answered, by method, route and status.",
            state.requests.keys.sorted().map { "{\($0)} \(state.requests[$0] ?? 0)" })
        lines += Self.family(
            name + "http_request_duration_seconds", "histogram", "Time to answer a request, by route.",
            state.requestDurations.keys.sorted().flatMap { state.requestDurations[$0]?.samples(labels: $0) ?? [] })
        lines += Self.family(
            name + "retention_deleted_total", "counter", "Finished rows the retention sweep deleted, by table.",
            ["deliveries", "pushes", "webhook_events", "fetch_objects"].map {
                "{table=\"\($0)\"} \(state.retentionDeleted[$0] ?? 0)"
            })
        lines += Self.family(
            name + "rate_limited_total", "counter", "Requests refused 429 for a token over its rate, by limit.",
            RateLimit.allCases.map { "{limit=\"\($0.rawValue)\"} \(state.rateLimited[$0] ?? 0)" })
        lines += Self.family(
            name + "webpush_received_total", "counter",
            "Messages Web Push senders posted to the relay's endpoints, by the status answered.",
            [201, 400, 401, 403, 404, 410, 413, 429].map {
                "{status=\"\($0)\"} \(state.webPushReceived[$0] ?? 0)"
            })
        lines += Self.family(
            name + "fetch_requests_total", "counter",
            "Requests for content kept to fetch, by the status answered (404 for any refusal).",
            [200, 404].map { "{status=\"\($0)\"} \(state.fetches[$0] ?? 0)" })
        lines += Self.family(
            name + "receipts_total", "counter",
            "Receipts taken (a repeat too), by app, the delivery's kind and the outcome the device reported.",
            apps.flatMap { app in
                DeliveryKind.allCases.flatMap { kind in
                    ["displayed", "degraded"].map { outcome in
                        "{app=\"\(app)\",kind=\"\(kind.rawValue)\",outcome=\"\(outcome)\"} "
                            + "\(state.receipts[ReceiptCount(app: app, kind: kind, outcome: outcome)] ?? 0)"
                    }
                }
            })
        lines += Self.family(
            name + "receipts_degraded_total", "counter",
            "Degraded receipts taken, by app and the reason the device gave (envelope-v1.md's).",
            apps.flatMap { app in
                ReceiptOutcome.degradeReasons.map { reason in
                    "{app=\"\(app)\",reason=\"\(reason.rawValue)\"} "
                        + "\(state.receiptsDegraded[ReceiptReason(app: app, reason: reason.rawValue)] ?? 0)"
                }
            })
        lines += Self.family(
            name + "sent_to_displayed_seconds", "histogram",
            "From APNs' or the push service's acceptance of a delivery to the receipt saying it was displayed, by app.",
            apps.flatMap { app in
                let histogram = state.sentToDisplayed[app] ?? Histogram(bounds: Histogram.deviceBounds)
                return histogram.samples(labels: "app=\"\(app)\"")
            })
        lines += Self.family(
            name + "webhook_requests_total", "counter", "Requests to webhook endpoints, by endpoint and outcome.",
            webhookEndpoints.flatMap { endpoint in
                let counts = state.webhookRequests[endpoint] ?? (0, 0)
                return [
                    "{endpoint=\"\(endpoint)\",outcome=\"delivered\"} \(counts.delivered)",
                    "{endpoint=\"\(endpoint)\",outcome=\"failed\"} \(counts.failed)",
                ]
            })
        lines += Self.family(
            name + "webhook_events_expired_total", "counter",
            "Webhook events that ended failed once their retry window passed, by endpoint.",
            webhookEndpoints.map { "{endpoint=\"\($0)\"} \(state.webhookEventsExpired[$0] ?? 0)" })
        for metric in storeMetrics {
            let whole = metric.value.rounded() == metric.value && abs(metric.value) < 1e15
            let value = whole ? String(Int(metric.value)) : "\(metric.value)"
            lines += Self.family(name + metric.name, "counter", metric.help, [" " + value])
        }
        if let statistics {
            lines += Self.family(
                name + "webhook_events_queued", "gauge", "Webhook events waiting, by endpoint.",
                webhookEndpoints.map { "{endpoint=\"\($0)\"} \(statistics.webhookEventsQueued[$0] ?? 0)" })
            lines += Self.family(
                name + "webhook_endpoint_disabled", "gauge",
                "1 for a webhook endpoint disabled after failing for too long (webhook enable restores it).",
                webhookEndpoints.map {
                    "{endpoint=\"\($0)\"} \(statistics.webhookEndpointsDisabled.contains($0) ? 1 : 0)"
                })
            lines += Self.family(
                name + "queue_depth", "gauge", "Deliveries queued, due or waiting for a retry.",
                [" \(statistics.deliveries[.queued] ?? 0)"])
            lines += Self.family(
                name + "queue_oldest_seconds", "gauge", "Age of the oldest queued delivery (0 when none).",
                [" \(statistics.oldestQueuedSeconds(now: now))"])
            lines += Self.family(
                name + "devices", "gauge", "Registered devices, by state.",
                [
                    "{state=\"active\"} \(statistics.activeDevices)",
                    "{state=\"unregistered\"} \(statistics.unregisteredDevices)",
                ])
            lines += appGauges(statistics, now: now)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The queue and device gauges again, by app (the families above are the gateway's totals,
    /// kept unlabelled so that the alerts and dashboards on them keep their meaning): one sample
    /// per configured app, 0 for an app with nothing counted.
    private func appGauges(_ statistics: GatewayStatistics, now: Int64) -> [String] {
        let name = "pushseal_gateway_app_"
        func counts(_ app: AppID) -> AppStatistics { statistics.apps[app] ?? AppStatistics() }
        return Self.family(
            name + "queue_depth", "gauge", "Deliveries queued, due or waiting for a retry, by app.",
            apps.map { "{app=\"\($0)\"} \(counts($0).queued)" })
            + Self.family(
                name + "queue_oldest_seconds", "gauge", "Age of the oldest queued delivery (0 when none), by app.",
                apps.map { "{app=\"\($0)\"} \(counts($0).oldestQueuedSeconds(now: now))" })
            + Self.family(
                name + "devices", "gauge", "Registered devices, by app and state.",
                apps.flatMap {
                    [
                        "{app=\"\($0)\",state=\"active\"} \(counts($0).activeDevices)",
                        "{app=\"\($0)\",state=\"unregistered\"} \(counts($0).unregisteredDevices)",
                    ]
                })
    }

    /// A metric family: its `HELP` and `TYPE` lines, then one line per sample, each `samples`
    /// element being what follows the name (its labels and value, or a histogram series' suffix).
    private static func family(_ name: String, _ type: String, _ help: String, _ samples: [String]) -> [String] {
        ["# HELP \(name) \(help)", "# TYPE \(name) \(type)"] + samples.map { name + $0 }
    }
}
