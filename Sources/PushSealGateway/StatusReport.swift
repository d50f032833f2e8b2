internal import PushSealCore

/// What `/status.json` reports, and the status page shows (gateway-v1.md, "Status page"): the
/// queue and its age, how deliveries ended over the last hour, devices by state, the age of the
/// APNs provider token, and every instance's last heartbeat.
struct StatusReport: Sendable {
    /// The store it reads.
    let store: any GatewayStore
    /// This instance's id.
    let instance: String
    /// When the provider token in use was made, UNIX seconds, if one was.
    let providerTokenIssuedAt: @Sendable () -> Int?
    /// Whether this instance is stopping.
    let isDraining: @Sendable () -> Bool

    /// The report as of `now` (milliseconds since the epoch).
    /// - Throws: when the store cannot be read (the page then shows the API's 503).
    func json(now: Int64) throws -> JSONValue {
        let statistics = try store.statistics()
        var lastHour: [OutcomeLabel: Int] = [:]
        for outcome in try store.outcomes(since: now - 3_600_000) {
            lastHour[OutcomeLabel(outcome.status, reason: outcome.reason), default: 0] += outcome.count
        }
        // The most frequent first.
        let outcomes: [JSONValue] = lastHour.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { outcome, count in
            .object(
                JSONObject([
                    ("status", .string(outcome.status.rawValue)), ("reason", .string(outcome.reason)),
                    ("count", .number(JSONNumber(count))),
                ]))
        }
        let instances: [JSONValue] = try store.instances().map { record in
            .object(
                JSONObject([
                    ("id", .string(record.id)), ("version", .string(record.version)),
                    ("started_at", .string(EventLog.timestamp(record.startedAt))),
                    ("heartbeat_age_seconds", .number(JSONNumber(Int(max(0, now - record.heartbeatAt) / 1_000)))),
                ]))
        }
        let tokenAge: JSONValue =
            providerTokenIssuedAt().map { .number(JSONNumber(max(0, Int(now / 1_000) - $0))) } ?? .null
        return .object(
            JSONObject([
                ("generated_at", .string(EventLog.timestamp(now))), ("instance", .string(instance)),
                ("version", .string(GatewayVersion.number)), ("draining", .bool(isDraining())),
                (
                    "queue",
                    .object(
                        JSONObject([
                            ("depth", .number(JSONNumber(statistics.deliveries[.queued] ?? 0))),
                            ("oldest_seconds", .number(JSONNumber(statistics.oldestQueuedSeconds(now: now)))),
                        ]))
                ),
                ("last_hour", .array(outcomes)),
                (
                    "devices",
                    .object(
                        JSONObject([
                            ("active", .number(JSONNumber(statistics.activeDevices))),
                            ("unregistered", .number(JSONNumber(statistics.unregisteredDevices))),
                        ]))
                ),
                ("provider_token_age_seconds", tokenAge),
                ("instances", .array(instances)),
            ]))
    }
}
