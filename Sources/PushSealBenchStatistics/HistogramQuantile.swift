/// Quantiles read from Prometheus histograms: the gateway's `/metrics`, one exposition per instance.
package enum HistogramQuantile {
    /// The upper bound of the bucket that holds quantile `fraction` of histogram `name` (its
    /// `_bucket` lines, unlabelled but for `le`), summed over every exposition in `expositions`;
    /// 0 when it counted nothing.
    package static func upperBound(_ fraction: Double, of name: String, in expositions: [String]) -> Double {
        let prefix = "\(name)_bucket{le=\""
        var counts: [Double: Double] = [:]
        for text in expositions {
            for line in text.split(separator: "\n") where line.hasPrefix(prefix) {
                let rest = line.dropFirst(prefix.count)
                guard let quote = rest.firstIndex(of: "\""), let space = rest.lastIndex(of: " "),
                    let bound = Double(rest[..<quote]), let count = Double(rest[rest.index(after: space)...])
                else { continue }
                counts[bound, default: 0] += count
            }
        }
        let buckets = counts.sorted { $0.key < $1.key }
        guard let total = buckets.last?.value, total > 0 else { return 0 }
        return buckets.first { $0.value >= fraction * total }?.key ?? 0
    }
}
