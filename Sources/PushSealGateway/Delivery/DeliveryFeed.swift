internal import Foundation
internal import PushSealDelivery
internal import PushSealGatewayModel

/// The deliveries a worker hands its sender, claimed from the outbox a few at a time as the
/// sender asks for them: an APNs sender takes one each time a stream frees, so its connection's
/// streams stay full for as long as deliveries are due, instead of waiting for a whole batch to
/// be answered before the next is claimed. The next claim is made ahead, on a thread of the
/// feed's own (the sender waits for it, so it must not depend on a shared pool having a thread
/// free), once no more than ``lowWater`` are left, so that the sender rarely waits for the
/// database. The feed ends when a claim finds nothing due (or the worker is stopping); the worker
/// then waits for the next push.
final class DeliveryFeed: @unchecked Sendable {
    /// At this many deliveries in hand or fewer, the next claim starts.
    let lowWater: Int
    private let claim: @Sendable () -> [OutboxDelivery]
    private let condition = NSCondition()
    private var wake: InputWake?
    private var ready: [OutboxDelivery]
    private var position = 0
    /// A claim is wanted, or under way.
    private var claiming = false
    private var ended = false
    private var closed = false

    /// Whether the worker is stopping: a sender then begins no request it can leave for later.
    let isStopping: @Sendable () -> Bool

    /// A feed that hands out `first`, then what `claim` returns (on its thread, named `name`),
    /// until it returns nothing; it claims again once no more than `lowWater` are left.
    /// `isStopping` says when the worker stops.
    init(
        first: [OutboxDelivery], lowWater: Int, name: String, isStopping: @escaping @Sendable () -> Bool = { false },
        claim: @escaping @Sendable () -> [OutboxDelivery]
    ) {
        ready = first
        self.lowWater = lowWater
        self.isStopping = isStopping
        self.claim = claim
        let thread = Thread { [self] in claimAhead() }
        thread.name = name
        thread.start()
    }

    /// Raised each time a claim lands, so that a sender told ``Offer/claiming`` asks again at once;
    /// nil when no pipe could be opened (the sender then asks again after a short poll). Made when
    /// first asked for, so a feed whose sender takes batches opens none.
    var landed: InputWake? {
        condition.lock()
        defer { condition.unlock() }
        if wake == nil { wake = try? InputWake() }
        return wake
    }

    /// The next delivery, waiting for a claim when none is in hand; nil once a claim found none
    /// and every one claimed was handed out.
    func next() -> OutboxDelivery? {
        condition.lock()
        defer { condition.unlock() }
        guard waitForDeliveries() else { return nil }
        position += 1
        claimIfLow()
        return ready[position - 1]
    }

    /// What the feed has now, without waiting.
    enum Offer {
        /// The next delivery.
        case delivery(OutboxDelivery)
        /// None in hand, and a claim is under way: ask again shortly.
        case claiming
        /// A claim found none, and every one claimed was handed out.
        case ended
    }

    /// The next delivery if one is in hand; ``Offer/claiming`` while the claim that may bring
    /// more is under way, so that a sender reads its answers meanwhile instead of waiting here.
    func offer() -> Offer {
        condition.lock()
        defer { condition.unlock() }
        claimIfLow()
        guard position < ready.count else { return ended ? .ended : .claiming }
        position += 1
        claimIfLow()
        return .delivery(ready[position - 1])
    }

    /// Every delivery in hand, waiting for a claim when none is; empty once a claim found none
    /// and every one claimed was handed out.
    func nextBatch() -> [OutboxDelivery] {
        condition.lock()
        defer { condition.unlock() }
        guard waitForDeliveries() else { return [] }
        let batch = Array(ready[position...])
        position = ready.count
        claimIfLow()
        return batch
    }

    /// After a claim found none: claims once more, so that a sender whose earlier deliveries are
    /// still being answered keeps taking new ones (a Web Push sender, whose slow push services
    /// must not hold the others' deliveries). ``nextBatch()`` then waits for that claim.
    func claimAgain() {
        condition.lock()
        defer { condition.unlock() }
        guard ended && !closed else { return }
        ended = false
        claimIfLow()
    }

    /// Ends the feed and its thread: the sender is done with it. Deliveries claimed and never
    /// handed out stay leased until their lease ends.
    func close() {
        condition.lock()
        closed = true
        ended = true
        condition.broadcast()
        condition.unlock()
    }

    /// With the lock held: waits until a delivery is in hand (true) or the feed ended (false),
    /// claiming when few are in hand.
    private func waitForDeliveries() -> Bool {
        while true {
            claimIfLow()
            if position < ready.count { return true }
            if ended { return false }
            condition.wait()
        }
    }

    /// With the lock held: asks the thread for a claim when no more than ``lowWater`` are in hand
    /// and none is under way.
    private func claimIfLow() {
        guard ready.count - position <= lowWater && !claiming && !ended else { return }
        claiming = true
        condition.broadcast()
    }

    /// The feed's thread: claims whenever asked, until the feed ends.
    private func claimAhead() {
        condition.lock()
        defer { condition.unlock() }
        while true {
            while !claiming && !closed { condition.wait() }
            if closed || ended { return }
            condition.unlock()
            let more = claim()
            condition.lock()
            if position > 0 {
                ready.removeFirst(position)
                position = 0
            }
            ready += more
            ended = more.isEmpty
            claiming = false
            condition.broadcast()
            wake?.raise()
        }
    }
}
