/// Which requests the gateway logs as `request` lines: the configuration's `access_log`
/// (gateway-v1.md, "Configuration").
public enum AccessLogMode: Sendable, Equatable {
    /// None: `false`, the default.
    case off
    /// Every request but the probes and scrapes that would drown the rest (`/healthz`, `/readyz`,
    /// `/metrics`): `true`.
    case requests
    /// Every request, probes and scrapes included: `"all"`.
    case all

    /// The routes `requests` leaves out: a load balancer's probes and Prometheus's scrapes.
    static let probesAndScrapes: Set<String> = ["/healthz", "/readyz", "/metrics"]

    /// Whether a request to `route` (its template) is logged.
    func logs(route: String) -> Bool {
        switch self {
        case .off: false
        case .requests: !Self.probesAndScrapes.contains(route)
        case .all: true
        }
    }
}
