extension Duration {
    /// The duration in seconds: for rates in summaries, timeouts handed to C APIs, and timings
    /// in logs and metrics.
    package var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration in whole nanoseconds, 0 when it is negative: the time left before a
    /// deadline, for Dispatch's timeouts.
    package var nanosecondsLeft: Int {
        let (seconds, attoseconds) = components
        return seconds < 0 ? 0 : max(0, Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}
