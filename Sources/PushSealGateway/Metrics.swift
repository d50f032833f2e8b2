internal import Synchronization

/// The gateway's counters and histograms, exported in Prometheus' text format at `/metrics` with
/// the store's gauges (queue depth and age, devices by state) and the build's identity
/// (gateway-v1.md, "Operations"). Every label takes its values from a closed set.
final class Metrics: Sendable {
    private struct State {
        var pushesAccepted = 0
        var outcomes: [String: Int] = [:]
        var acceptToAPNs = Histogram()
        var earlyCloses: [ConnectionGuard.Cause: Int] = [:]
        var requests: [String: Int] = [:]
        var requestDurations: [String: Histogram] = [:]
        var retentionDeleted: [String: Int] = [:]
        var draining = false
    }

    private let state = Mutex(State())

    /// Counts an accepted push.
    func pushAccepted() { state.withLock { $0.pushesAccepted += 1 } }

    /// Counts an attempt's outcome by status (`queued` when it is to be tried again) and the
    /// reason's label (``ReasonLabel``).
    func delivery(_ status: DeliveryStatus, reason: String?) {
        let key = "status=\"\(status.rawValue)\",reason=\"\(ReasonLabel.of(reason))\""
        state.withLock { $0.outcomes[key, default: 0] += 1 }
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

    /// Marks the gateway as draining (after SIGTERM).
    func startDraining() { state.withLock { $0.draining = true } }

    /// Whether the gateway is draining.
    var isDraining: Bool { state.withLock { $0.draining } }

    /// Pushes accepted, and attempts' outcomes by status, since the start (the `stopped` line).
    func totals() -> (accepted: Int, outcomes: [String: Int]) {
        state.withLock { state in
            var byStatus: [String: Int] = [:]
            for (key, count) in state.outcomes {
                // `status="sent",reason="…"`: the status is the first label's value.
                let status = key.split(separator: "\"").dropFirst().first.map(String.init) ?? "unknown"
                byStatus[status == "queued" ? "retried" : status, default: 0] += count
            }
            return (state.pushesAccepted, byStatus)
        }
    }

    /// The text exposition, with the store's `statistics` and the count of provider tokens made.
    func exposition(_ statistics: GatewayStatistics?, providerTokens: Int, now: Int64) -> String {
        let state = state.withLock { $0 }
        var lines = [
            "# HELP pushseal_gateway_build_info The running build: 1, labelled with its version.",
            "# TYPE pushseal_gateway_build_info gauge",
            "pushseal_gateway_build_info{version=\"\(GatewayVersion.number)\",api=\"\(GatewayVersion.api)\"} 1",
            "# HELP pushseal_gateway_draining 1 once SIGTERM started the drain.",
            "# TYPE pushseal_gateway_draining gauge",
            "pushseal_gateway_draining \(state.draining ? 1 : 0)",
            "# HELP pushseal_gateway_pushes_accepted_total Pushes accepted by POST /v1/pushes.",
            "# TYPE pushseal_gateway_pushes_accepted_total counter",
            "pushseal_gateway_pushes_accepted_total \(state.pushesAccepted)",
            "# HELP pushseal_gateway_deliveries_total Delivery attempts' outcomes, by status (queued: to be tried again) and reason.",
            "# TYPE pushseal_gateway_deliveries_total counter",
        ]
        lines += state.outcomes.keys.sorted().map {
            "pushseal_gateway_deliveries_total{\($0)} \(state.outcomes[$0] ?? 0)"
        }
        lines += [
            "# HELP pushseal_gateway_accept_to_apns_seconds From acceptance to APNs' 200.",
            "# TYPE pushseal_gateway_accept_to_apns_seconds histogram",
        ]
        lines += state.acceptToAPNs.lines("pushseal_gateway_accept_to_apns_seconds")
        lines += [
            "# HELP pushseal_gateway_provider_tokens_total APNs provider tokens made (one per 55 minutes, and after ExpiredProviderToken).",
            "# TYPE pushseal_gateway_provider_tokens_total counter",
            "pushseal_gateway_provider_tokens_total \(providerTokens)",
            "# HELP pushseal_gateway_http_connections_closed_total Connections the gateway closed early, by cause.",
            "# TYPE pushseal_gateway_http_connections_closed_total counter",
        ]
        lines += ConnectionGuard.Cause.allCases.map {
            "pushseal_gateway_http_connections_closed_total{cause=\"\($0.rawValue)\"} \(state.earlyCloses[$0] ?? 0)"
        }
        lines += [
            "# HELP pushseal_gateway_http_requests_total Requests answered, by method, route and status.",
            "# TYPE pushseal_gateway_http_requests_total counter",
        ]
        lines += state.requests.keys.sorted().map {
            "pushseal_gateway_http_requests_total{\($0)} \(state.requests[$0] ?? 0)"
        }
        lines += [
            "# HELP pushseal_gateway_http_request_duration_seconds Time to answer a request, by route.",
            "# TYPE pushseal_gateway_http_request_duration_seconds histogram",
        ]
        for route in state.requestDurations.keys.sorted() {
            lines +=
                state.requestDurations[route]?.lines(
                    "pushseal_gateway_http_request_duration_seconds", labels: route) ?? []
        }
        lines += [
            "# HELP pushseal_gateway_retention_deleted_total Finished rows the retention sweep deleted, by table.",
            "# TYPE pushseal_gateway_retention_deleted_total counter",
        ]
        lines += ["deliveries", "pushes"].map {
            "pushseal_gateway_retention_deleted_total{table=\"\($0)\"} \(state.retentionDeleted[$0] ?? 0)"
        }
        if let statistics {
            lines += [
                "# HELP pushseal_gateway_queue_depth Deliveries queued, due or waiting for a retry.",
                "# TYPE pushseal_gateway_queue_depth gauge",
                "pushseal_gateway_queue_depth \(statistics.deliveries[.queued] ?? 0)",
                "# HELP pushseal_gateway_queue_oldest_seconds Age of the oldest queued delivery (0 when none).",
                "# TYPE pushseal_gateway_queue_oldest_seconds gauge",
                "pushseal_gateway_queue_oldest_seconds \(statistics.oldestQueuedAcceptedAt.map { max(0, now - $0) / 1_000 } ?? 0)",
                "# HELP pushseal_gateway_devices Registered devices, by state.",
                "# TYPE pushseal_gateway_devices gauge",
                "pushseal_gateway_devices{state=\"active\"} \(statistics.activeDevices)",
                "pushseal_gateway_devices{state=\"unregistered\"} \(statistics.unregisteredDevices)",
            ]
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
