/// A product against its floor, measured in rounds that each time both for the same number of
/// operations back to back: the median rates, and the product's rate over the floor's per round,
/// so that each ratio compares the two under the same machine state.
package struct RateComparison: Sendable {
    /// The product's operations per second (median over the rounds).
    package let rate: Double
    /// The floor's operations per second (median over the rounds).
    package let floorRate: Double
    /// The product's rate over the floor's, one sample per round.
    package let ratio: Spread

    /// The comparison of `rounds`, the seconds the product and the floor took in each, for
    /// `operations` operations each; `rounds` must not be empty, nor hold a time of zero.
    package init(operations: Int, rounds: [(product: Double, floor: Double)]) {
        precondition(!rounds.isEmpty && rounds.allSatisfy { $0.product > 0 && $0.floor > 0 }, "a round of no time")
        let count = Double(operations)
        rate = Spread(rounds.map { count / $0.product }).median
        floorRate = Spread(rounds.map { count / $0.floor }).median
        ratio = Spread(rounds.map { $0.floor / $0.product })
    }
}
