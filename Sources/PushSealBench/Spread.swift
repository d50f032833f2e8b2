/// A sample's median and how far it spreads: quartiles and extremes.
struct Spread {
    let median: Double
    let lowerQuartile: Double
    let upperQuartile: Double
    let minimum: Double
    let maximum: Double
    let count: Int

    /// The spread of `samples`, which must not be empty. Quartiles interpolate between ranks.
    init(_ samples: [Double]) {
        let sorted = samples.sorted()
        func quantile(_ fraction: Double) -> Double {
            let position = fraction * Double(sorted.count - 1)
            let below = Int(position)
            let above = min(below + 1, sorted.count - 1)
            return sorted[below] + (sorted[above] - sorted[below]) * (position - Double(below))
        }
        median = quantile(0.5)
        lowerQuartile = quantile(0.25)
        upperQuartile = quantile(0.75)
        minimum = sorted[0]
        maximum = sorted[sorted.count - 1]
        count = sorted.count
    }
}
