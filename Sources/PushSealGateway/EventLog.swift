internal import PushSealCore

#if canImport(Glibc)
    import Glibc
#endif

/// One JSON line per event on standard error (accepted, sent, failed, unregistered, …): ids and
/// outcomes, never content, never a whole device token (its first 8 digits only).
struct EventLog: Sendable {
    /// Whether lines are written (tests turn it off).
    let enabled: Bool

    /// Writes `{"event": name, …members}` with the time in milliseconds.
    func write(_ event: String, _ members: [(String, JSONValue)] = []) {
        guard enabled else { return }
        let object = JSONObject(
            [("time", .number(JSONNumber(Int(GatewayClock.milliseconds())))), ("event", .string(event))] + members)
        let line = JSONWriter.bytes(.object(object)) + [0x0A]
        line.withUnsafeBytes { _ = Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
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

/// The wall clock, in milliseconds since the epoch.
enum GatewayClock {
    /// Now.
    static func milliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000 + Int64(now.tv_nsec) / 1_000_000
    }
}
