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
/// At most ``Limits/lanes`` origins are served at once, and since an origin is a URL anyone can
/// make up (a subscription is a URL; wildcard DNS makes origins free), the lanes are shared out:
/// one user's deliveries hold at most ``Limits/perUser`` of them, and one push's at most
/// ``Limits/perPush``, so that whoever controls many stalled origins holds only their own
/// deliveries, and another user's delivery still finds a lane at once. What has no room goes back
/// to the outbox, due once the lane (or the user's, or the push's lanes) should have drained
/// (``admit(_:to:at:run:)`` says when), without counting as an attempt: the outbox is the queue,
/// not memory.
final class OriginLanes: @unchecked Sendable {
    /// A lane's bounds.
    struct Limits: Sendable {
        /// The most deliveries one origin holds (queued and in flight): an HTTP/2 connection's streams.
        var perOrigin = 100
        /// The most time, by the lane's estimate, of deliveries one origin holds.
        var budget = Duration.seconds(10)
        /// The most origins with deliveries at once (each holds a thread while it sends).
        var lanes = 32
        /// The most lanes holding one user's deliveries at once: a person's browsers and phones
        /// are at a few push services.
        var perUser = 4
        /// The most lanes holding one push's deliveries at once: half, so that a push to many
        /// users at many services leaves room for every other push.
        var perPush = 16
        /// The shortest and longest wait of a delivery sent back for want of room.
        var deferral = Duration.seconds(1)...Duration.seconds(60)
    }

    /// Whose a delivery is: the lanes are shared out by user and by push.
    struct Owner: Hashable, Sendable {
        /// The user of its device, one key for each app's user (the device when it has none:
        /// deleted since).
        let user: String
        /// Its push.
        let push: String
    }

    /// One origin's deliveries.
    private final class Lane {
        let queue: DispatchQueue
        /// Deliveries taken and not yet answered.
        var outstanding = 0
        /// Those deliveries, by user and by push.
        var users: [String: Int] = [:]
        var pushes: [String: Int] = [:]
        /// The run under way.
        var run: Run?

        init(origin: String) { queue = DispatchQueue(label: "pushseal-gateway.webpush.\(origin)") }
    }

    /// One `run` call of a lane: when it began, and its deliveries not answered yet, by index.
    /// Read and changed under the lanes' lock only.
    private final class Run: @unchecked Sendable {
        let began = ContinuousClock.now
        var answered = 0
        var unanswered: [Int: Owner]

        init(_ deliveries: [Int: Owner]) { unanswered = deliveries }
    }

    private let limits: Limits
    private let condition = NSCondition()
    private var lanes: [String: Lane] = [:]
    /// How many lanes hold deliveries of each user, and of each push.
    private var lanesOfUser: [String: Int] = [:]
    private var lanesOfPush: [String: Int] = [:]
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

    /// Takes those of the deliveries to `origin` (whose owners are `owners`, in order) that its
    /// lane has room for, and whose user and push may hold one more lane; the rest are deferred.
    /// The taken ones are run on the lane's thread, as one `run` call with their indices (in
    /// order), which calls `answered` with each index once (from any thread) as its answer comes.
    /// - Returns: the indices taken, and each deferred one with when it is due again.
    func admit(
        _ owners: [Owner], to origin: String, at now: Int64,
        run: @escaping @Sendable (_ taken: [Int], _ answered: @escaping @Sendable (Int) -> Void) -> Void
    ) -> (taken: [Int], deferred: [(index: Int, until: Int64)]) {
        condition.lock()
        defer { condition.unlock() }
        let lane: Lane
        if let existing = lanes[origin] {
            lane = existing
        } else if lanes.count < limits.lanes {
            lane = Lane(origin: origin)
            lanes[origin] = lane
        } else {
            let until = now + Self.milliseconds(limits.deferral.lowerBound)
            return ([], owners.indices.map { ($0, until) })
        }
        let perDelivery = estimate(origin, lane)
        let room = perDelivery > 0 ? Int(limits.budget.seconds / perDelivery) : limits.perOrigin
        let free = max(0, min(limits.perOrigin, max(1, room)) - lane.outstanding)
        var taken: [Int] = []
        var deferred: [(index: Int, until: Int64)] = []
        for (index, owner) in owners.enumerated() {
            guard taken.count < free else {
                deferred.append((index, 0))
                continue
            }
            guard mayJoin(lane, owner) else {
                deferred.append(
                    (index, now + jittered(drainTime { $0.users[owner.user] != nil || $0.pushes[owner.push] != nil })))
                continue
            }
            hold(owner, in: lane)
            taken.append(index)
        }
        // What the origin had no room for is due once its lane should have drained.
        let backlog = jittered(.seconds(perDelivery * Double(lane.outstanding)))
        deferred = deferred.map { $0.until == 0 ? ($0.index, now + backlog) : $0 }
        if !taken.isEmpty {
            let state = Run(Dictionary(uniqueKeysWithValues: taken.map { ($0, owners[$0]) }))
            lane.queue.async { [self, taken] in
                begin(origin, state)
                run(taken) { [self] index in answered(origin, state, index) }
                end(origin, state)
            }
        } else if lane.outstanding == 0 {
            lanes[origin] = nil
        }
        return (taken, deferred)
    }

    /// With the lock held: whether `owner`'s delivery may go into `lane`: its user and its push
    /// are there already, or may hold one more lane.
    private func mayJoin(_ lane: Lane, _ owner: Owner) -> Bool {
        (lane.users[owner.user] != nil || lanesOfUser[owner.user, default: 0] < limits.perUser)
            && (lane.pushes[owner.push] != nil || lanesOfPush[owner.push, default: 0] < limits.perPush)
    }

    /// With the lock held: `owner`'s delivery is in `lane` from now.
    private func hold(_ owner: Owner, in lane: Lane) {
        lane.outstanding += 1
        if lane.users[owner.user, default: 0] == 0 { lanesOfUser[owner.user, default: 0] += 1 }
        lane.users[owner.user, default: 0] += 1
        if lane.pushes[owner.push, default: 0] == 0 { lanesOfPush[owner.push, default: 0] += 1 }
        lane.pushes[owner.push, default: 0] += 1
    }

    /// With the lock held: `owner`'s delivery in `lane` is answered, or given up.
    private func release(_ owner: Owner, in lane: Lane) {
        lane.outstanding -= 1
        Self.decrement(&lane.users, owner.user, emptied: { Self.decrement(&lanesOfUser, owner.user) })
        Self.decrement(&lane.pushes, owner.push, emptied: { Self.decrement(&lanesOfPush, owner.push) })
    }

    /// Lowers `counts[key]` by one, removing it at zero (then calling `emptied`).
    private static func decrement(_ counts: inout [String: Int], _ key: String, emptied: () -> Void = {}) {
        guard let count = counts[key] else { return }
        if count > 1 {
            counts[key] = count - 1
        } else {
            counts[key] = nil
            emptied()
        }
    }

    /// With the lock held: how long until the first of the lanes that `holds` is likely to have
    /// drained (its estimate times what it holds), within ``Limits/deferral``.
    private func drainTime(of holds: (Lane) -> Bool) -> Duration {
        let soonest =
            lanes.filter { holds($0.value) }.map { estimate($0.key, $0.value) * Double($0.value.outstanding) }
            .min() ?? 0
        return .seconds(soonest)
    }

    /// `wait` within ``Limits/deferral``, lengthened at random by up to a quarter, in milliseconds:
    /// deliveries sent back together do not all come back together.
    private func jittered(_ wait: Duration) -> Int64 {
        let bounded = min(max(wait, limits.deferral.lowerBound), limits.deferral.upperBound)
        return Self.milliseconds(bounded) * Int64.random(in: 100...125) / 100
    }

    /// With the lock held: the seconds a delivery to `origin` costs by now, the larger of what
    /// its runs measured and what the run under way shows (its time so far over its answers
    /// plus one); 0 while nothing is known.
    private func estimate(_ origin: String, _ lane: Lane) -> Double {
        let measured = estimates[origin] ?? 0
        guard let run = lane.run else { return measured }
        return max(measured, (ContinuousClock.now - run.began).seconds / Double(run.answered + 1))
    }

    private func begin(_ origin: String, _ run: Run) {
        condition.lock()
        lanes[origin]?.run = run
        condition.unlock()
    }

    /// The delivery `index` of `run` was answered: it is no longer held.
    private func answered(_ origin: String, _ run: Run, _ index: Int) {
        condition.lock()
        if let lane = lanes[origin], let owner = run.unanswered.removeValue(forKey: index) {
            release(owner, in: lane)
            run.answered += 1
        }
        condition.unlock()
    }

    /// `run` ended: its time per answer becomes the origin's estimate (averaged with the last),
    /// any delivery it left unanswered is no longer held, and an emptied lane is closed.
    private func end(_ origin: String, _ run: Run) {
        condition.lock()
        defer { condition.unlock() }
        guard let lane = lanes[origin] else { return }
        if run.answered > 0 {
            let measured = (ContinuousClock.now - run.began).seconds / Double(run.answered)
            if estimates.count >= Self.estimateMemory && estimates[origin] == nil { estimates = [:] }
            estimates[origin] = estimates[origin].map { ($0 + measured) / 2 } ?? measured
        }
        for owner in run.unanswered.values { release(owner, in: lane) }
        run.unanswered = [:]
        lane.run = nil
        if lane.outstanding <= 0 {
            lanes[origin] = nil
            condition.broadcast()
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int64 { Int64(duration.seconds * 1_000) }
}
