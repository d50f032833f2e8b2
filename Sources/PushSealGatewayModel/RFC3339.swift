#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Times as the gateway writes them: in its log lines, its API's answers and its webhook events.
package enum RFC3339 {
    /// `milliseconds` since the epoch as RFC 3339 in UTC: `2026-12-03T10:40:00.123Z`.
    /// Written into a template's bytes: it runs for every line of the log.
    package static func text(_ milliseconds: Int64) -> String {
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
}
