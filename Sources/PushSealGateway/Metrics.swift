internal import Synchronization

/// The gateway's counters and the accept-to-APNs latency histogram, exported in Prometheus' text
/// format at `/metrics` with the store's gauges (queue depth, devices by state).
final class Metrics: Sendable {
    private struct State {
        var pushesAccepted = 0
        var outcomes: [String: Int] = [:]
        var latencyBuckets = [Int](repeating: 0, count: Metrics.latencyBounds.count)
        var latencyCount = 0
        var latencySum = 0.0
        var earlyCloses: [ConnectionGuard.Cause: Int] = [:]
    }

    /// Upper bounds of the latency buckets, in seconds.
    static let latencyBounds: [Double] = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300]

    private let state = Mutex(State())

    /// Counts an accepted push.
    func pushAccepted() { state.withLock { $0.pushesAccepted += 1 } }

    /// Counts a finished delivery by status and reason. The label keeps the reason up to its
    /// first colon (`HTTP 413` of a push service's `HTTP 413: what it said`), so that what a
    /// peer writes cannot make labels without end.
    func delivery(_ status: DeliveryStatus, reason: String?) {
        let kept = String((reason ?? "").prefix { $0 != ":" })
        let key = "status=\"\(status.rawValue)\",reason=\"\(Self.label(kept))\""
        state.withLock { $0.outcomes[key, default: 0] += 1 }
    }

    /// Counts a connection closed for its slowness, or to make room.
    func connectionClosedEarly(_ cause: ConnectionGuard.Cause) {
        state.withLock { $0.earlyCloses[cause, default: 0] += 1 }
    }

    /// Records the time from acceptance to APNs' answer for a sent delivery.
    func latency(seconds: Double) {
        state.withLock { state in
            for (index, bound) in Self.latencyBounds.enumerated() where seconds <= bound {
                state.latencyBuckets[index] += 1
            }
            state.latencyCount += 1
            state.latencySum += seconds
        }
    }

    /// The text exposition, with the store's `statistics` and the count of provider tokens made.
    func exposition(_ statistics: GatewayStatistics?, providerTokens: Int) -> String {
        let state = state.withLock { $0 }
        var lines = [
            "# HELP pushseal_gateway_pushes_accepted_total Pushes accepted by POST /v1/pushes.",
            "# TYPE pushseal_gateway_pushes_accepted_total counter",
            "pushseal_gateway_pushes_accepted_total \(state.pushesAccepted)",
            "# HELP pushseal_gateway_deliveries_total Deliveries finished, by status and APNs reason.",
            "# TYPE pushseal_gateway_deliveries_total counter",
        ]
        lines += state.outcomes.keys.sorted().map {
            "pushseal_gateway_deliveries_total{\($0)} \(state.outcomes[$0] ?? 0)"
        }
        lines += [
            "# HELP pushseal_gateway_accept_to_apns_seconds From acceptance to APNs' 200.",
            "# TYPE pushseal_gateway_accept_to_apns_seconds histogram",
        ]
        for (index, bound) in Self.latencyBounds.enumerated() {
            lines.append(
                "pushseal_gateway_accept_to_apns_seconds_bucket{le=\"\(bound)\"} \(state.latencyBuckets[index])")
        }
        lines += [
            "pushseal_gateway_accept_to_apns_seconds_bucket{le=\"+Inf\"} \(state.latencyCount)",
            "pushseal_gateway_accept_to_apns_seconds_sum \(state.latencySum)",
            "pushseal_gateway_accept_to_apns_seconds_count \(state.latencyCount)",
        ]
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
        if let statistics {
            lines += [
                "# HELP pushseal_gateway_queue_depth Deliveries queued, due or waiting for a retry.",
                "# TYPE pushseal_gateway_queue_depth gauge",
                "pushseal_gateway_queue_depth \(statistics.deliveries[.queued] ?? 0)",
                "# HELP pushseal_gateway_devices Registered devices, by state.",
                "# TYPE pushseal_gateway_devices gauge",
                "pushseal_gateway_devices{state=\"active\"} \(statistics.activeDevices)",
                "pushseal_gateway_devices{state=\"unregistered\"} \(statistics.unregisteredDevices)",
            ]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A label value: APNs reasons are letters, a push service's are `HTTP` and digits; anything
    /// else is replaced, never escaped.
    private static func label(_ text: String) -> String {
        String(
            text.unicodeScalars.prefix(64).map {
                $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == " " ? Character($0) : "_"
            })
    }
}
