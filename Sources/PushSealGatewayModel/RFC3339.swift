/// Times as the gateway writes them: in its log lines, its API's answers and its webhook events.
package enum RFC3339 {
    /// `milliseconds` since the epoch as RFC 3339 in UTC: `2026-12-03T10:40:00.123Z`.
    /// Written into a template's bytes: it runs for every line of the log.
    package static func text(_ milliseconds: Int64) -> String {
        let (seconds, millisecond) = floorDivision(milliseconds, 1_000)
        let (days, secondOfDay) = floorDivision(seconds, 86_400)
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        var text: [UInt8] = Array("0000-00-00T00:00:00.000Z".utf8)
        /// `value`'s last `width` decimal digits, ending at `end`.
        func put(_ value: Int64, endingAt end: Int, width: Int) {
            var rest = value
            for offset in 0..<width {
                text[end - offset] = UInt8(truncatingIfNeeded: 0x30 + rest % 10)
                rest /= 10
            }
        }
        put(year, endingAt: 3, width: 4)
        put(month, endingAt: 6, width: 2)
        put(day, endingAt: 9, width: 2)
        put(secondOfDay / 3_600, endingAt: 12, width: 2)
        put(secondOfDay / 60 % 60, endingAt: 15, width: 2)
        put(secondOfDay % 60, endingAt: 18, width: 2)
        put(millisecond, endingAt: 22, width: 3)
        return String(decoding: text, as: UTF8.self)
    }

    /// The proleptic Gregorian date `days` after 1970-01-01: the civil-from-days conversion
    /// counted in 400-year eras of 146,097 days, each year starting on 1 March so that the leap
    /// day ends it.
    static func civilDate(daysSinceEpoch days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let (era, dayOfEra) = floorDivision(days + 719_468, 146_097)
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// `value` divided by `divisor` rounded down, and the remainder that leaves (never negative).
    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }
}
