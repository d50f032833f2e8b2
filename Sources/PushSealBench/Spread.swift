/// A sample's median and how far it spreads: quartiles and extremes.
struct Spread {
    let median: Double
    let lowerQuartile: Double
    let upperQuartile: Double
    let minimum: Double
    let maximum: Double
    let count: Int

    private let sorted: [Double]

    /// The spread of `samples`, which must not be empty. Quantiles interpolate between ranks.
    init(_ samples: [Double]) {
        sorted = samples.sorted()
        minimum = sorted[0]
        maximum = sorted[sorted.count - 1]
        count = sorted.count
        median = Self.quantile(0.5, sorted)
        lowerQuartile = Self.quantile(0.25, sorted)
        upperQuartile = Self.quantile(0.75, sorted)
    }

    /// The quantile `fraction` (0.99: the 99th percentile).
    func quantile(_ fraction: Double) -> Double { Self.quantile(fraction, sorted) }

    private static func quantile(_ fraction: Double, _ sorted: [Double]) -> Double {
        let position = fraction * Double(sorted.count - 1)
        let below = Int(position)
        let above = min(below + 1, sorted.count - 1)
        return sorted[below] + (sorted[above] - sorted[below]) * (position - Double(below))
    }
}
