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
    static func held(_ release: DispatchSemaphore) -> @Sendable (Int, @escaping @Sendable () -> Void) -> Void {
        { taken, answered in
            for _ in 0..<taken {
                release.wait()
                answered()
            }
        }
    }

    @Test("a lane that has gone a second without an answer takes no more; the rest is due once it should drain")
    func slowLaneDefers() throws {
        var limits = OriginLanes.Limits()
        limits.budget = .seconds(2)
        limits.lanes = 2
        let lanes = OriginLanes(limits: limits)
        let release = DispatchSemaphore(value: 0)
        let first = lanes.admit(5, to: "https://slow.example", at: 0, run: Self.held(release))
        #expect(first.taken == 5, "nothing is known of the origin yet: up to perOrigin")
        Thread.sleep(forTimeInterval: 1.1)
        // About 1.1 s a delivery by now (no answer in 1.1 s): the budget of 2 s holds 1, and 5 are held.
        let later = lanes.admit(3, to: "https://slow.example", at: 1_000_000, run: Self.held(release))
        #expect(later.taken == 0)
        #expect(later.deferredUntil >= 1_000_000 + 5_000, "due once the 5 held should be answered: \(later)")
        #expect(later.deferredUntil <= 1_000_000 + 60_000 * 125 / 100)
        let other = lanes.admit(3, to: "https://fast.example", at: 0) { taken, answered in
            for _ in 0..<taken { answered() }
        }
        #expect(other.taken == 3, "another origin is not held by the slow one")
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
        let first = lanes.admit(5, to: "https://new.example", at: 0, run: Self.held(release))
        #expect(first.taken == 3 && first.deferredUntil >= 1_000, "\(first)")
        #expect(lanes.admit(1, to: "https://new.example", at: 0, run: Self.held(release)).taken == 0)
        for _ in 0..<3 { release.signal() }
        #expect(lanes.waitUntilIdle(atMost: .seconds(5)))
    }

    @Test("at most `lanes` origins at once; a delivery to another waits a second, and is taken once one closes")
    func laneCount() throws {
        var limits = OriginLanes.Limits()
        limits.lanes = 1
        let lanes = OriginLanes(limits: limits)
        let release = DispatchSemaphore(value: 0)
        #expect(lanes.admit(1, to: "https://a.example", at: 0, run: Self.held(release)).taken == 1)
        let refused = lanes.admit(2, to: "https://b.example", at: 10_000, run: Self.held(release))
        #expect(refused.taken == 0 && (11_000...11_250).contains(refused.deferredUntil), "\(refused)")
        release.signal()
        #expect(lanes.waitUntilIdle(atMost: .seconds(5)))
        let taken = lanes.admit(1, to: "https://b.example", at: 0) { taken, answered in
            for _ in 0..<taken { answered() }
        }
        #expect(taken.taken == 1)
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
