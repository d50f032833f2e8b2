internal import PushSealCore
internal import PushSealGatewayModel
internal import PushSealGatewayStorage

/// What `/status.json` reports, and the status page shows (gateway-v1.md, "Status page"): the
/// queue and its age, how deliveries ended over the last hour, devices by state, the age of the
/// APNs provider token, the reasons queued deliveries wait to be tried again for, every
/// instance's last heartbeat (stale when it is late), the webhook endpoints' health, each app's
/// queue and devices (and, with `receipts`, what its devices showed), and `attention`: what needs
/// an operator, most urgent first. It covers every
/// app, or one: an app's token reads its own app's alone (``json(now:in:)``).
struct StatusReport: Sendable {
    /// The store it reads.
    let store: any GatewayStore
    /// This instance's id.
    let instance: String
    /// The apps this instance serves, in configuration order.
    let apps: [AppID]
    /// The configured webhook endpoints' names, each with its app.
    var webhookEndpoints: [(app: AppID, name: String)] = []
    /// When the oldest of the provider tokens in use (one per APNs key) of an app (every app's
    /// when nil) was made, UNIX seconds, if one was.
    let providerTokenIssuedAt: @Sendable (AppID?) -> Int?
    /// Whether this instance is stopping.
    let isDraining: @Sendable () -> Bool
    /// What this instance's configuration should change (``ConfigurationWarning``), each with the
    /// app it belongs to: a warning in `attention` while it stands.
    var configurationWarnings: [(app: AppID, warning: ConfigurationWarning)] = []
    /// The apps this instance serves with `receipts`: their rows show the last hour's receipts.
    var receiptApps: Set<AppID> = []

    /// The report as of `now` (milliseconds since the epoch) on `app`, or on every app when nil:
    /// an app's report counts its own deliveries, devices, webhook endpoints and keys alone (the
    /// instances, and this one's draining, are the gateway's).
    /// - Throws: when the store cannot be read (the page then shows the API's 503).
    func json(now: Int64, in app: AppID? = nil) throws -> JSONValue {
        let statistics = try store.statistics(in: app)
        var lastHour: [OutcomeLabel: Int] = [:]
        for outcome in try store.outcomes(since: now - 3_600_000, in: app) {
            lastHour[OutcomeLabel(outcome.status, storedReason: outcome.reason), default: 0] += outcome.count
        }
        // The most frequent first.
        let outcomes: [JSONValue] = lastHour.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { outcome, count in
            .object(
                JSONObject([
                    ("status", .string(outcome.status.rawValue)), ("reason", .string(outcome.reason)),
                    ("count", .number(JSONNumber(count))),
                ]))
        }
        let retrying = try store.retrying(limit: Self.retryingReasons, in: app)
        var attention: [Attention] = []
        let instances: [JSONValue] = try store.instances().map { record in
            let age = Int(max(0, now - record.heartbeatAt) / 1_000)
            let stale = age > Self.staleHeartbeatSeconds
            if stale {
                attention.append(
                    Attention(
                        .warning,
                        "instance \(record.id) has not been heard from for \(age) s: stopped without draining?"))
            }
            return .object(
                JSONObject([
                    ("id", .string(record.id)), ("version", .string(record.version)),
                    ("started_at", .string(RFC3339.text(record.startedAt))),
                    ("heartbeat_age_seconds", .number(JSONNumber(age))), ("state", .string(stale ? "stale" : "alive")),
                ]))
        }
        let webhooks: [JSONValue] = webhookEndpoints.filter { app == nil || $0.app == app }.map(\.name).map {
            endpoint in
            let disabled = statistics.webhookEndpointsDisabled.contains(endpoint)
            if disabled {
                attention.append(
                    Attention(.critical, "webhook endpoint \(endpoint) is disabled: pushseal-gateway webhook enable"))
            }
            return .object(
                JSONObject([
                    ("endpoint", .string(endpoint)), ("disabled", .bool(disabled)),
                    ("queued", .number(JSONNumber(statistics.webhookEventsQueued[endpoint] ?? 0))),
                ]))
        }
        let oldest = statistics.oldestQueuedSeconds(now: now)
        if oldest > Self.criticalQueueAgeSeconds {
            attention.append(Attention(.critical, "a queued delivery has waited \(oldest) s"))
        } else if oldest > Self.warningQueueAgeSeconds {
            attention.append(Attention(.warning, "a queued delivery has waited \(oldest) s"))
        }
        let held = retrying.filter { APNsSender.providerTokenRefusals.contains($0.reason) }.reduce(0) { $0 + $1.count }
        if held > 0 {
            attention.append(
                Attention(
                    .critical,
                    "APNs refuses the provider token: \(held == 1 ? "1 delivery" : "\(held) deliveries") held until it is fixed "
                        + "(check the .p8, key id and team id)"))
        } else if lastHour.keys.contains(where: { APNsSender.providerTokenRefusals.contains($0.reason) }) {
            attention.append(
                Attention(
                    .critical, "APNs refused the provider token in the last hour: check the .p8, key id and team id"))
        }
        let appRows = try appRows(statistics, in: app, now: now, attention: &attention)
        if isDraining() { attention.append(Attention(.warning, "this instance is draining")) }
        if let problem = store.writeHealth.problem {
            attention.append(Attention(.critical, "instance \(instance) cannot write to the database: \(problem)"))
        }
        for (warned, warning) in configurationWarnings where app == nil || warned == app {
            attention.append(Attention(.warning, "the configuration of instance \(instance): \(warning)"))
        }
        let tokenAge: JSONValue =
            providerTokenIssuedAt(app).map { .number(JSONNumber(max(0, Int(now / 1_000) - $0))) } ?? .null
        return .object(
            JSONObject([
                ("generated_at", .string(RFC3339.text(now))), ("instance", .string(instance)),
                ("version", .string(GatewayVersion.number)), ("draining", .bool(isDraining())),
                ("queue", Self.queue(statistics.totals, now: now)),
                ("last_hour", .array(outcomes)),
                ("devices", Self.devices(statistics.totals)),
                ("provider_token_age_seconds", tokenAge),
                (
                    "retrying",
                    .array(
                        retrying.map { waiting in
                            .object(
                                JSONObject([
                                    ("reason", .string(waiting.reason)), ("count", .number(JSONNumber(waiting.count))),
                                    (
                                        "next_attempt_in_seconds",
                                        .number(JSONNumber(Int(max(0, waiting.nextAttemptAt - now) / 1_000)))
                                    ),
                                ]))
                        })
                ),
                ("instances", .array(instances)),
                ("webhooks", .array(webhooks)),
                ("apps", .array(appRows)),
                ("attention", .array(attention.sorted { $0.level > $1.level }.map(\.json))),
            ]))
    }

    /// Each app's row of the report: `app`'s alone, or the apps this instance serves then every
    /// other app the database lists (removed from this instance's configuration, or not yet
    /// added to it) or holds queued deliveries of; a warning in `attention` for each of the
    /// latter with deliveries waiting, since no worker here claims them.
    private func appRows(
        _ statistics: GatewayStatistics, in app: AppID?, now: Int64, attention: inout [Attention]
    ) throws -> [JSONValue] {
        var others: Set<AppID> = []
        if app == nil {
            others = Set(try store.listedApps().map(\.id)).union(statistics.apps.keys).subtracting(apps)
        }
        let served = app.map { [$0] } ?? apps
        return try (served.map { ($0, true) } + others.sorted().map { ($0, false) }).map { id, isServed in
            let counts = statistics.apps[id] ?? AppStatistics()
            if !isServed && counts.queued > 0 {
                attention.append(
                    Attention(
                        .warning,
                        "app \(id) is not served by this instance: \(counts.queued) queued "
                            + "\(counts.queued == 1 ? "delivery waits" : "deliveries wait") (deleted once no instance "
                            + "has served it for its retention time)"))
            }
            var receipts = JSONValue.null
            if isServed, receiptApps.contains(id) {
                let displays = LastHourDisplays(try store.displays(since: now - 3_600_000, in: id))
                if let warning = displays.warning(app: id) { attention.append(Attention(.warning, warning)) }
                receipts = displays.json
            }
            return .object(
                JSONObject([
                    ("app", .string(id.name)), ("served", .bool(isServed)),
                    ("queue", Self.queue(counts, now: now)), ("devices", Self.devices(counts)), ("receipts", receipts),
                ]))
        }
    }

    /// `{"depth", "oldest_seconds"}` of `counts`' queue at `now`: the gateway's, or one app's.
    private static func queue(_ counts: AppStatistics, now: Int64) -> JSONValue {
        .object(
            JSONObject([
                ("depth", .number(JSONNumber(counts.queued))),
                ("oldest_seconds", .number(JSONNumber(counts.oldestQueuedSeconds(now: now)))),
            ]))
    }

    /// `{"active", "unregistered"}` of `counts`' devices: the gateway's, or one app's.
    private static func devices(_ counts: AppStatistics) -> JSONValue {
        .object(
            JSONObject([
                ("active", .number(JSONNumber(counts.activeDevices))),
                ("unregistered", .number(JSONNumber(counts.unregisteredDevices))),
            ]))
    }

    /// The most reasons of queued deliveries the report lists (a push service's words make many).
    static let retryingReasons = 20
    /// Heartbeats come every 10 s: three missed make an instance stale.
    static let staleHeartbeatSeconds = 30
    /// A queued delivery this old is worth a look; the `PushSealQueueStale` alert's age pages.
    static let warningQueueAgeSeconds = 60
    /// As `PushSealQueueStale`.
    static let criticalQueueAgeSeconds = 900

    /// One thing the page shows above the figures, in its level's colour.
    struct Attention {
        /// How urgent.
        enum Level: Int, Comparable {
            case warning = 1
            case critical = 2
            static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
        }

        let level: Level
        let message: String

        init(_ level: Level, _ message: String) {
            self.level = level
            self.message = message
        }

        var json: JSONValue {
            .object(
                JSONObject([
                    ("level", .string(level == .critical ? "critical" : "warning")), ("message", .string(message)),
                ]))
        }
    }
}
