/// The deliveries a worker hands its sender, claimed from the outbox a few at a time as the
/// sender asks for them: an APNs sender takes one each time a stream frees, so its connection's
/// streams stay full for as long as deliveries are due, instead of waiting for a whole batch to
/// be answered before the next is claimed. The feed ends when a claim finds nothing due (or the
/// worker is stopping); the worker then waits for the next push.
final class DeliveryFeed {
    private let claim: () -> [OutboxDelivery]
    private var claimed: [OutboxDelivery]
    private var position = 0
    private var ended = false

    /// A feed that hands out `first`, then what `claim` returns, until it returns nothing.
    init(first: [OutboxDelivery], claim: @escaping () -> [OutboxDelivery]) {
        claimed = first
        self.claim = claim
    }

    /// The next delivery, claiming more when those claimed are all handed out; nil once a claim
    /// found none.
    func next() -> OutboxDelivery? {
        if position == claimed.count {
            guard refill() else { return nil }
        }
        position += 1
        return claimed[position - 1]
    }

    /// Every delivery claimed and not yet handed out, claiming more when there is none; empty
    /// once a claim found none.
    func nextBatch() -> [OutboxDelivery] {
        if position == claimed.count {
            guard refill() else { return [] }
        }
        defer { position = claimed.count }
        return Array(claimed[position...])
    }

    private func refill() -> Bool {
        guard !ended else { return false }
        claimed = claim()
        position = 0
        ended = claimed.isEmpty
        return !ended
    }
}
