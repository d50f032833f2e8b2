/// A Prometheus histogram's state: counts per upper bound, the count and the sum.
struct Histogram: Sendable {
    /// The upper bounds, in seconds, of the buckets every histogram of the gateway uses.
    static let bounds: [Double] = [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300]

    private(set) var buckets = [Int](repeating: 0, count: Histogram.bounds.count)
    private(set) var count = 0
    private(set) var sum = 0.0

    /// Counts one observation of `seconds`.
    mutating func observe(_ seconds: Double) {
        for (index, bound) in Self.bounds.enumerated() where seconds <= bound { buckets[index] += 1 }
        count += 1
        sum += seconds
    }

    /// The series after the family's name (`_bucket{…}`, `_sum`, `_count`), with `labels`
    /// (`route="/v1/pushes"`) before each bucket's `le`.
    func samples(labels: String = "") -> [String] {
        let prefix = labels.isEmpty ? "" : labels + ","
        let suffix = labels.isEmpty ? "" : "{\(labels)}"
        return zip(Self.bounds, buckets).map { "_bucket{\(prefix)le=\"\($0)\"} \($1)" } + [
            "_bucket{\(prefix)le=\"+Inf\"} \(count)", "_sum\(suffix) \(sum)", "_count\(suffix) \(count)",
        ]
    }
}
