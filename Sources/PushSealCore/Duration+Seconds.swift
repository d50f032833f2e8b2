extension Duration {
    /// The duration in seconds: for rates in summaries, timeouts handed to C APIs, and timings
    /// in logs and metrics.
    package var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
