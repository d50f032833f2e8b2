internal import Dispatch
internal import Foundation
internal import PushSealCore

/// The Web Push deliveries one worker has in hand, each push-service origin in a lane of its own
/// (gateway-v1.md, "Web Push", isolation), so that a push service that answers slowly, or one
/// request at a time, holds only its own deliveries and never the worker's next claim.
///
/// Each lane runs its deliveries on a thread of its own, in turn. It takes no more than it can
/// start within a bound of time: it keeps an estimate of the seconds each delivery costs there
/// (what its runs took, and how long the run under way has gone without an answer), and holds at
/// most ``Limits/budget`` of them by that estimate, and never more than ``Limits/perOrigin``.
/// What a lane has no room for goes back to the outbox, due once the lane should have drained
/// (``admit(_:to:at:run:)`` says when), without counting as an attempt: the outbox is the queue,
/// not memory. At most ``Limits/lanes`` origins are served at once.
final class OriginLanes: @unchecked Sendable {
    /// A lane's bounds.
    struct Limits: Sendable {
        /// The most deliveries one origin holds (queued and in flight): an HTTP/2 connection's streams.
        var perOrigin = 100
        /// The most time, by the lane's estimate, of deliveries one origin holds.
        var budget = Duration.seconds(10)
        /// The most origins with deliveries at once (each holds a thread while it sends).
        var lanes = 32
        /// The shortest and longest wait of a delivery sent back for want of room.
        var deferral = Duration.seconds(1)...Duration.seconds(60)
    }

    /// One origin's deliveries.
    private final class Lane {
        let queue: DispatchQueue
        /// Deliveries taken and not yet answered.
        var outstanding = 0
        /// When the run under way began, and how many of its deliveries were answered.
        var run: (began: ContinuousClock.Instant, answered: Int)?

        init(origin: String) { queue = DispatchQueue(label: "pushseal-gateway.webpush.\(origin)") }
    }

    private let limits: Limits
    private let condition = NSCondition()
    private var lanes: [String: Lane] = [:]
    /// Each origin's seconds per delivery, as its finished runs measured them (forgotten as a
    /// whole once it holds ``estimateMemory`` origins).
    private var estimates: [String: Double] = [:]
    private static let estimateMemory = 4_096

    /// Lanes bounded by `limits`.
    init(limits: Limits = Limits()) { self.limits = limits }

    /// Waits until no delivery is held, at most `timeout`; whether none is.
    func waitUntilIdle(atMost timeout: Duration) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout.seconds)
        condition.lock()
        defer { condition.unlock() }
        while !lanes.isEmpty && condition.wait(until: deadline) {}
        return lanes.isEmpty
    }

    /// Takes those of `count` deliveries to `origin` that its lane has room for, in order; the
    /// rest are deferred. The taken ones are run on the lane's thread, as one `run` call that
    /// calls `answered` once for each of them (from any thread) as its answer comes.
    /// - Returns: how many were taken (the first ones), and when the rest are due again.
    func admit(
        _ count: Int, to origin: String, at now: Int64,
        run: @escaping @Sendable (_ taken: Int, _ answered: @escaping @Sendable () -> Void) -> Void
    ) -> (taken: Int, deferredUntil: Int64) {
        condition.lock()
        defer { condition.unlock() }
        let lane: Lane
        if let existing = lanes[origin] {
            lane = existing
        } else if lanes.count < limits.lanes {
            lane = Lane(origin: origin)
            lanes[origin] = lane
        } else {
            return (0, now + Self.milliseconds(limits.deferral.lowerBound))
        }
        let perDelivery = estimate(origin, lane)
        let room = perDelivery > 0 ? Int(limits.budget.seconds / perDelivery) : limits.perOrigin
        let taken = max(0, min(count, min(limits.perOrigin, max(1, room)) - lane.outstanding))
        lane.outstanding += taken
        let backlog = Duration.seconds(perDelivery * Double(lane.outstanding))
        let wait = min(max(backlog, limits.deferral.lowerBound), limits.deferral.upperBound)
        let deferredUntil = now + Self.milliseconds(wait) * Int64.random(in: 100...125) / 100
        if taken > 0 {
            lane.queue.async { [self] in
                begin(origin)
                run(taken) { [self] in answered(origin) }
                end(origin, taken: taken)
            }
        } else if lane.outstanding == 0 {
            lanes[origin] = nil
        }
        return (taken, deferredUntil)
    }

    /// With the lock held: the seconds a delivery to `origin` costs by now, the larger of what
    /// its runs measured and what the run under way shows (its time so far over its answers
    /// plus one); 0 while nothing is known.
    private func estimate(_ origin: String, _ lane: Lane) -> Double {
        let measured = estimates[origin] ?? 0
        guard let run = lane.run else { return measured }
        return max(measured, (ContinuousClock.now - run.began).seconds / Double(run.answered + 1))
    }

    private func begin(_ origin: String) {
        condition.lock()
        lanes[origin]?.run = (.now, 0)
        condition.unlock()
    }

    private func answered(_ origin: String) {
        condition.lock()
        if let lane = lanes[origin] {
            lane.outstanding -= 1
            lane.run?.answered += 1
        }
        condition.unlock()
    }

    /// A run of `taken` deliveries ended: its time per answer becomes the origin's estimate
    /// (averaged with the last), any delivery it left unanswered is no longer held, and an
    /// emptied lane is closed.
    private func end(_ origin: String, taken: Int) {
        condition.lock()
        defer { condition.unlock() }
        guard let lane = lanes[origin], let run = lane.run else { return }
        if run.answered > 0 {
            let measured = (ContinuousClock.now - run.began).seconds / Double(run.answered)
            if estimates.count >= Self.estimateMemory && estimates[origin] == nil { estimates = [:] }
            estimates[origin] = estimates[origin].map { ($0 + measured) / 2 } ?? measured
        }
        lane.outstanding -= max(0, taken - run.answered)
        lane.run = nil
        if lane.outstanding <= 0 {
            lanes[origin] = nil
            condition.broadcast()
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int64 { Int64(duration.seconds * 1_000) }
}
