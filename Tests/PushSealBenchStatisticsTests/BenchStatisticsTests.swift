import PushSealBenchStatistics
import Testing

/// The bench's statistics: what its ratios and percentiles are computed by.
@Suite("bench statistics")
struct BenchStatisticsTests {
    @Test("quantiles interpolate between ranks as numpy's default does, whatever the samples' order")
    func quantiles() {
        let spread = Spread([4, 1, 3, 2])
        #expect(spread.median == 2.5 && spread.lowerQuartile == 1.75 && spread.upperQuartile == 3.25)
        #expect(spread.minimum == 1 && spread.maximum == 4 && spread.count == 4)
        #expect(abs(spread.quantile(0.9) - 3.7) < 1e-12)
        #expect(spread.quantile(0) == 1 && spread.quantile(1) == 4)
        #expect(spread.quantile(1.5) == 4 && spread.quantile(-1) == 1, "a fraction outside 0…1 is clamped")
        let one = Spread([7])
        #expect(one.median == 7 && one.quantile(0.99) == 7 && one.lowerQuartile == 7)
        let odd = Spread([10, 0, 5, 20, 15])
        #expect(odd.median == 10 && odd.lowerQuartile == 5 && odd.upperQuartile == 15)
    }

    @Test("a comparison's ratio is per round, the floor's time over the product's; its rates are medians")
    func comparison() {
        // Three rounds of 100 operations: the product took 2 s, 1 s and 4 s; the floor 1 s each.
        let comparison = RateComparison(operations: 100, rounds: [(2, 1), (1, 1), (4, 1)])
        #expect(comparison.ratio.median == 0.5 && comparison.ratio.minimum == 0.25 && comparison.ratio.maximum == 1)
        #expect(comparison.rate == 50 && comparison.floorRate == 100)
    }

    @Test("figures are rounded half away from zero, padded to their decimals, and keep their sign")
    func decimalText() {
        #expect(DecimalText.text(1234.5) == "1235")
        #expect(DecimalText.text(0.875, decimals: 2) == "0.88")
        #expect(DecimalText.text(0.05, decimals: 2) == "0.05")
        #expect(DecimalText.text(3, decimals: 3) == "3.000")
        #expect(DecimalText.text(-0.05, decimals: 1) == "-0.1")
        #expect(DecimalText.text(-12.34, decimals: 1) == "-12.3")
        #expect(DecimalText.text(-0.004, decimals: 2) == "0.00", "no sign on a figure that rounds to zero")
    }

    @Test("a histogram's quantile is its bucket's upper bound, over every instance's exposition")
    func histogramQuantile() {
        let name = "pushseal_gateway_accept_to_apns_seconds"
        let first = """
            # TYPE \(name) histogram
            \(name)_bucket{le="0.01"} 50
            \(name)_bucket{le="0.1"} 90
            \(name)_bucket{le="1"} 100
            \(name)_bucket{le="+Inf"} 100
            \(name)_count 100
            """
        let second = """
            \(name)_bucket{le="0.01"} 0
            \(name)_bucket{le="0.1"} 0
            \(name)_bucket{le="1"} 0
            \(name)_bucket{le="+Inf"} 100
            other_bucket{le="0.01"} 1000
            """
        #expect(HistogramQuantile.upperBound(0.5, of: name, in: [first]) == 0.01)
        #expect(HistogramQuantile.upperBound(0.9, of: name, in: [first]) == 0.1)
        #expect(HistogramQuantile.upperBound(0.99, of: name, in: [first]) == 1)
        #expect(HistogramQuantile.upperBound(0.25, of: name, in: [first, second]) == 0.01)
        #expect(HistogramQuantile.upperBound(0.5, of: name, in: [first, second]) == 1, "100 of 200 by 1 s")
        #expect(
            HistogramQuantile.upperBound(0.99, of: name, in: [first, second]) == .infinity,
            "the second instance's pushes are past every bound")
        #expect(HistogramQuantile.upperBound(0.5, of: name, in: ["", "no histogram"]) == 0)
    }
}
