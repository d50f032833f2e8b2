internal import PushSealCore
internal import PushSealGatewayModel
internal import PushSealGatewayStorage

#if canImport(Glibc)
    import Glibc
#endif

/// One JSON line per event on standard error (accepted, sent, failed, unregistered, …): the time
/// (RFC 3339, UTC, milliseconds), a level, the event, ids and outcomes; never content, never a
/// whole device token (its first 8 digits only), an endpoint's path or a secret.
///
/// ```json
/// {"time":"2026-12-03T10:40:00.123Z","level":"info","event":"sent","push":"…","device":"phone-1",…}
/// ```
struct EventLog: Sendable {
    /// Where each line goes, its newline included; nil when lines are not written (tests turn
    /// them off, or collect them).
    private let sink: (@Sendable ([UInt8]) -> Void)?

    /// A log to standard error, or none.
    init(enabled: Bool) { sink = enabled ? Self.standardError : nil }

    /// Writes `line` to standard error in one call, so that lines from several threads never mix.
    private static func standardError(_ line: [UInt8]) {
        line.withUnsafeBytes { _ = Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    /// A log whose lines `sink` takes, one call per line (the tests read what was logged).
    init(sink: @escaping @Sendable ([UInt8]) -> Void) { self.sink = sink }

    /// The events an operator must look at (`error`: the gateway could not do its work) and those
    /// worth a look (`warning`); every other event is `info`.
    static let levels: [String: String] = [
        "store-error": "error", "apns-error": "error", "invalid-delivery": "error",
        "failed": "warning", "drain-deadline": "warning", "webhook-failed": "warning", "webhook-expired": "warning",
        "delivery-not-configured": "warning", "abandoned-deliveries": "warning", "store-retry": "warning",
        "configuration-warning": "warning",
        "webhook-disabled": "error",
    ]

    /// Writes `{"time", "level", "event": name, …members}`, at the event's level of ``levels``
    /// unless `level` says otherwise (a line whose members make it matter more).
    func write(_ event: String, _ members: [(String, JSONValue)] = [], level: String? = nil) {
        guard let sink else { return }
        let object = JSONObject(
            [
                ("time", .string(RFC3339.text(GatewayClock.milliseconds()))),
                ("level", .string(level ?? Self.levels[event] ?? "info")), ("event", .string(event)),
            ] + members)
        sink(JSONWriter.bytes(.object(object)) + [0x0A])
    }

    /// Logs `store-error` for `error`, a store's failure, with its cause, and counts it in
    /// `metrics` (`pushseal_gateway_store_errors_total{cause}`).
    func storeError(_ error: any Error, counting metrics: Metrics) {
        let cause = storeFailureCause(error)
        metrics.storeError(cause)
        write("store-error", [("cause", .string(cause.rawValue)), ("detail", .string("\(error)"))])
    }

    /// The first 8 digits of a device token: enough to find it, not enough to use it.
    static func tokenPrefix(_ token: String) -> JSONValue { .string(String(token.prefix(8))) }

    /// The scheme and authority of a Web Push endpoint: which push service, never the path that
    /// names (and lets anyone push to) the subscription.
    static func endpointOrigin(_ endpoint: String) -> JSONValue {
        let afterScheme = endpoint.firstRange(of: "://").map { endpoint[$0.upperBound...] } ?? Substring(endpoint)
        let authority = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return .string(String(endpoint[..<authority.endIndex].prefix(300)))
    }
}
