internal import PushSealCore

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
    /// Whether lines are written (tests turn it off).
    let enabled: Bool

    /// The events an operator must look at (`error`: the gateway could not do its work) and those
    /// worth a look (`warning`); every other event is `info`.
    static let levels: [String: String] = [
        "store-error": "error", "apns-error": "error", "invalid-delivery": "error",
        "failed": "warning", "drain-deadline": "warning", "webhook-failed": "warning", "webhook-expired": "warning",
        "webhook-disabled": "error",
    ]

    /// Writes `{"time", "level", "event": name, …members}`.
    func write(_ event: String, _ members: [(String, JSONValue)] = []) {
        guard enabled else { return }
        let object = JSONObject(
            [
                ("time", .string(Self.timestamp(GatewayClock.milliseconds()))),
                ("level", .string(Self.levels[event] ?? "info")), ("event", .string(event)),
            ] + members)
        let line = JSONWriter.bytes(.object(object)) + [0x0A]
        line.withUnsafeBytes { _ = Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    /// `milliseconds` since the epoch as RFC 3339 in UTC: `2026-12-03T10:40:00.123Z`.
    /// Written into a template's bytes: it runs for every line of the log.
    static func timestamp(_ milliseconds: Int64) -> String {
        var seconds = time_t(milliseconds / 1_000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var text: [UInt8] = Array("0000-00-00T00:00:00.000Z".utf8)
        /// `value`'s last `width` decimal digits, ending at `end`.
        func put(_ value: Int32, endingAt end: Int, width: Int) {
            var rest = value
            for offset in 0..<width {
                text[end - offset] = UInt8(truncatingIfNeeded: 0x30 + rest % 10)
                rest /= 10
            }
        }
        put(parts.tm_year + 1900, endingAt: 3, width: 4)
        put(parts.tm_mon + 1, endingAt: 6, width: 2)
        put(parts.tm_mday, endingAt: 9, width: 2)
        put(parts.tm_hour, endingAt: 12, width: 2)
        put(parts.tm_min, endingAt: 15, width: 2)
        put(parts.tm_sec, endingAt: 18, width: 2)
        put(Int32(milliseconds % 1_000), endingAt: 22, width: 3)
        return String(decoding: text, as: UTF8.self)
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
