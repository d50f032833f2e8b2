/// A Prometheus histogram's state: counts per upper bound, the count and the sum.
struct Histogram: Sendable {
    /// The upper bounds, in seconds, of the buckets of the gateway's own times (a request, a
    /// delivery).
    static let requestBounds: [Double] = [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300]
    /// The upper bounds, in seconds, of the buckets of times that include a phone's: from a
    /// second to a day, since a phone that is off shows its push when it is on again.
    static let deviceBounds: [Double] = [0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21600, 86400]

    /// The upper bounds of its buckets, in seconds.
    let bounds: [Double]
    private(set) var buckets: [Int]
    private(set) var count = 0
    private(set) var sum = 0.0

    /// An empty histogram whose buckets end at `bounds`, ascending.
    init(bounds: [Double] = Histogram.requestBounds) {
        self.bounds = bounds
        buckets = [Int](repeating: 0, count: bounds.count)
    }

    /// Counts one observation of `seconds`.
    mutating func observe(_ seconds: Double) {
        for (index, bound) in bounds.enumerated() where seconds <= bound { buckets[index] += 1 }
        count += 1
        sum += seconds
    }

    /// The series after the family's name (`_bucket{…}`, `_sum`, `_count`), with `labels`
    /// (`route="/v1/pushes"`) before each bucket's `le`.
    func samples(labels: String = "") -> [String] {
        let prefix = labels.isEmpty ? "" : labels + ","
        let suffix = labels.isEmpty ? "" : "{\(labels)}"
        return zip(bounds, buckets).map { "_bucket{\(prefix)le=\"\($0)\"} \($1)" } + [
            "_bucket{\(prefix)le=\"+Inf\"} \(count)", "_sum\(suffix) \(sum)", "_count\(suffix) \(count)",
        ]
    }
}
