import Foundation
import PushSealGatewayModel
import Testing

@testable import PushSealDelivery
@testable import PushSealGateway

/// Each push-service origin in a lane of its own, bounded in what it holds by its measured time
/// (``OriginLanes``), so that a slow origin defers its own deliveries and holds nobody else's.
@Suite("Web Push origin lanes")
struct OriginLanesTests {
    /// A run that answers nothing until `release` is signalled once per delivery.
    static func held(_ release: DispatchSemaphore) -> @Sendable ([Int], @escaping @Sendable (Int) -> Void) -> Void {
        { taken, answered in
            for index in taken {
                release.wait()
                answered(index)
            }
        }
    }

    /// A run that answers every delivery at once.
    static let prompt: @Sendable ([Int], @escaping @Sendable (Int) -> Void) -> Void = { taken, answered in
        for index in taken { answered(index) }
    }

    /// `count` deliveries of `user`'s push `push`.
    static func owners(_ count: Int, user: String = "shop/ada", push: String = "p1") -> [OriginLanes.Owner] {
        Array(repeating: OriginLanes.Owner(user: user, push: push), count: count)
    }

    @Test("a lane that has gone a second without an answer takes no more; the rest is due once it should drain")
    func slowLaneDefers() throws {
        var limits = OriginLanes.Limits()
        limits.budget = .seconds(2)
        limits.lanes = 2
        let lanes = OriginLanes(limits: limits)
        let release = DispatchSemaphore(value: 0)
        let first = lanes.admit(Self.owners(5), to: "https://slow.example", at: 0, run: Self.held(release))
        #expect(first.taken == [0, 1, 2, 3, 4], "nothing is known of the origin yet: up to perOrigin")
        Thread.sleep(forTimeInterval: 1.1)
        // About 1.1 s a delivery by now (no answer in 1.1 s): the budget of 2 s holds 1, and 5 are held.
        let later = lanes.admit(Self.owners(3), to: "https://slow.example", at: 1_000_000, run: Self.held(release))
        #expect(later.taken.isEmpty && later.deferred.map(\.index) == [0, 1, 2])
        #expect(
            later.deferred.allSatisfy { (1_000_000 + 5_000...1_000_000 + 60_000 * 125 / 100).contains($0.until) },
            "due once the 5 held should be answered: \(later.deferred)")
        let other = lanes.admit(Self.owners(3, user: "shop/bob"), to: "https://fast.example", at: 0, run: Self.prompt)
        #expect(other.taken.count == 3, "another origin is not held by the slow one")
        #expect(lanes.waitUntilIdle(atMost: .seconds(0.5)) == false, "the slow lane still holds its five")
        for _ in 0..<5 { release.signal() }
        #expect(lanes.waitUntilIdle(atMost: .seconds(5)))
    }

    @Test("a lane holds at most perOrigin deliveries even while nothing is known of its origin")
    func perOriginCap() throws {
        var limits = OriginLanes.Limits()
        limits.perOrigin = 3
        let lanes = OriginLanes(limits: limits)
        let release = DispatchSemaphore(value: 0)
        let first = lanes.admit(Self.owners(5), to: "https://new.example", at: 0, run: Self.held(release))
        #expect(first.taken == [0, 1, 2] && first.deferred.allSatisfy { $0.until >= 1_000 }, "\(first)")
        #expect(lanes.admit(Self.owners(1), to: "https://new.example", at: 0, run: Self.held(release)).taken.isEmpty)
        for _ in 0..<3 { release.signal() }
        #expect(lanes.waitUntilIdle(atMost: .seconds(5)))
    }

    @Test("at most `lanes` origins at once; a delivery to another waits a second, and is taken once one closes")
    func laneCount() throws {
        var limits = OriginLanes.Limits()
        limits.lanes = 1
        let lanes = OriginLanes(limits: limits)
        let release = DispatchSemaphore(value: 0)
        #expect(lanes.admit(Self.owners(1), to: "https://a.example", at: 0, run: Self.held(release)).taken == [0])
        let refused = lanes.admit(Self.owners(2), to: "https://b.example", at: 10_000, run: Self.held(release))
        #expect(refused.taken.isEmpty && refused.deferred.allSatisfy { (11_000...11_250).contains($0.until) })
        release.signal()
        #expect(lanes.waitUntilIdle(atMost: .seconds(5)))
        #expect(lanes.admit(Self.owners(1), to: "https://b.example", at: 0, run: Self.prompt).taken == [0])
        #expect(lanes.waitUntilIdle(atMost: .seconds(5)))
    }

    @Test("one user's stalled origins hold at most perUser lanes: another user's origin gets one at once")
    func perUserShare() throws {
        let lanes = OriginLanes()
        let release = DispatchSemaphore(value: 0)
        // 40 origins that never answer, each a subscription of one user, in pushes of their own.
        var held = 0
        for origin in 0..<40 {
            let admitted = lanes.admit(
                Self.owners(1, user: "shop/mallory", push: "p\(origin % 5)"), to: "https://\(origin).evil.example",
                at: 0, run: Self.held(release))
            held += admitted.taken.count
            #expect(admitted.taken.count + admitted.deferred.count == 1)
        }
        #expect(held == OriginLanes.Limits().perUser, "the user holds \(held) lanes")
        // A deferred one of the user's waits at least the shortest deferral, at most the longest.
        let again = lanes.admit(
            Self.owners(1, user: "shop/mallory", push: "p9"), to: "https://x.evil.example", at: 0,
            run: Self.held(release))
        #expect(again.taken.isEmpty && again.deferred.allSatisfy { (1_000...75_000).contains($0.until) })
        // The same user's other deliveries to an origin it holds already still join it.
        let joined = lanes.admit(
            Self.owners(1, user: "shop/mallory", push: "p0"), to: "https://0.evil.example",
            at: 0, run: Self.held(release))
        #expect(joined.taken == [0])
        let other = lanes.admit(
            Self.owners(1, user: "shop/ada", push: "p2"), to: "https://fcm.example", at: 0, run: Self.prompt)
        #expect(other.taken == [0], "another user's delivery is taken at once")
        // A user of the same name in another app is another user.
        let otherApp = lanes.admit(
            Self.owners(1, user: "news/mallory", push: "p3"), to: "https://mozilla.example", at: 0, run: Self.prompt)
        #expect(otherApp.taken == [0])
        for _ in 0..<held + 1 { release.signal() }
        #expect(lanes.waitUntilIdle(atMost: .seconds(5)))
    }

    @Test("one push holds at most perPush lanes; its users' deliveries beyond wait, another push's go at once")
    func perPushShare() throws {
        var limits = OriginLanes.Limits()
        limits.perPush = 3
        let lanes = OriginLanes(limits: limits)
        let release = DispatchSemaphore(value: 0)
        // A push to 10 users, each at an origin of their own that never answers.
        let taken = (0..<10).map { user in
            lanes.admit(
                Self.owners(1, user: "shop/u\(user)", push: "broadcast"), to: "https://\(user).stalled.example", at: 0,
                run: Self.held(release)
            ).taken.count
        }
        #expect(taken.reduce(0, +) == 3, "\(taken)")
        let other = lanes.admit(
            Self.owners(1, user: "shop/u9", push: "order-1042"), to: "https://fcm.example", at: 0, run: Self.prompt)
        #expect(other.taken == [0], "another push, to a user the first could not reach yet, goes at once")
        for _ in 0..<3 { release.signal() }
        #expect(lanes.waitUntilIdle(atMost: .seconds(5)))
    }

    @Test("a run's unanswered deliveries are released when it ends: the user may hold new lanes")
    func unansweredReleased() throws {
        var limits = OriginLanes.Limits()
        limits.perUser = 1
        let lanes = OriginLanes(limits: limits)
        // A run that ends without answering (a stopping worker).
        let first = lanes.admit(Self.owners(2), to: "https://a.example", at: 0) { _, _ in }
        #expect(first.taken == [0, 1])
        #expect(lanes.waitUntilIdle(atMost: .seconds(5)))
        #expect(lanes.admit(Self.owners(1), to: "https://b.example", at: 0, run: Self.prompt).taken == [0])
        #expect(lanes.waitUntilIdle(atMost: .seconds(5)))
    }

    @Test("a job left unsent by a stopping worker is due again at once, with no attempt counted")
    func unsentIsDueAtOnce() {
        let unsent = WebPushResult(
            line: 0, status: .failed, httpStatus: nil, reason: "not sent", attempts: 0, retryAfterSeconds: nil,
            transient: true)
        #expect(WebPushSender.outcome(unsent, attempts: 3, at: 5_000) == .retry(at: 5_000, reason: .gateway(.notSent)))
        let lost = WebPushResult(
            line: 0, status: .failed, httpStatus: nil, reason: "reset", attempts: 1, retryAfterSeconds: nil,
            transient: true)
        guard case .retry(let due, _) = WebPushSender.outcome(lost, attempts: 3, at: 5_000) else {
            Issue.record("a lost connection is retried")
            return
        }
        #expect(due >= 5_000 + 120_000, "after the outbox's backoff, not at once")
    }
}
