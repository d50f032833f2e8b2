/// A sample's median and how far it spreads: quartiles and extremes.
package struct Spread: Sendable {
    /// The median: the quantile 0.5.
    package let median: Double
    /// The quantile 0.25.
    package let lowerQuartile: Double
    /// The quantile 0.75.
    package let upperQuartile: Double
    /// The smallest sample.
    package let minimum: Double
    /// The largest sample.
    package let maximum: Double
    /// How many samples.
    package let count: Int

    private let sorted: [Double]

    /// The spread of `samples`, which must not be empty. Quantiles interpolate linearly between
    /// ranks (as numpy's default and R's type 7 do).
    package init(_ samples: [Double]) {
        precondition(!samples.isEmpty, "a spread of no sample")
        sorted = samples.sorted()
        minimum = sorted[0]
        maximum = sorted[sorted.count - 1]
        count = sorted.count
        median = Self.quantile(0.5, sorted)
        lowerQuartile = Self.quantile(0.25, sorted)
        upperQuartile = Self.quantile(0.75, sorted)
    }

    /// The quantile `fraction`, from 0 to 1 (0.99: the 99th percentile).
    package func quantile(_ fraction: Double) -> Double { Self.quantile(fraction, sorted) }

    private static func quantile(_ fraction: Double, _ sorted: [Double]) -> Double {
        let position = min(max(fraction, 0), 1) * Double(sorted.count - 1)
        let below = Int(position)
        let above = min(below + 1, sorted.count - 1)
        return sorted[below] + (sorted[above] - sorted[below]) * (position - Double(below))
    }
}
