extension Duration {
    /// The duration in seconds, for rates in summaries.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
