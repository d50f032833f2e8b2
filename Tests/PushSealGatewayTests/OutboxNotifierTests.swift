import Foundation
import PushSealGatewayModel
import PushSealGatewayStorage
import Synchronization
import Testing

@testable import PushSealGateway

/// How a PostgreSQL store announces committed pushes: at once when alone, shared in a burst, and
/// never leaving one unannounced.
@Suite("pushseal-gateway outbox notifier")
struct OutboxNotifierTests {
    /// What a notifier announced, and when.
    final class Announcements: Sendable {
        private let made = Mutex<[(kinds: Set<DeliveryKind>, at: ContinuousClock.Instant)]>([])
        private let arrived = DispatchSemaphore(value: 0)

        func record(_ kinds: Set<DeliveryKind>) {
            made.withLock { $0.append((kinds, .now)) }
            arrived.signal()
        }

        var all: [(kinds: Set<DeliveryKind>, at: ContinuousClock.Instant)] { made.withLock { $0 } }

        /// Whether an announcement comes within `seconds`.
        func wait(seconds: Double) -> Bool { arrived.wait(timeout: .now() + seconds) == .success }
    }

    @Test("a lone push is announced at once, with its kinds, and once")
    func lonePush() {
        let announcements = Announcements()
        let notifier = OutboxNotifier(name: "test-notifier") { announcements.record($0) }
        let accepted = ContinuousClock.now
        notifier.accepted([.webPush])
        #expect(announcements.wait(seconds: 2))
        let made = announcements.all
        #expect(made.map(\.kinds) == [[.webPush]])
        #expect(made[0].at - accepted < .milliseconds(500), "no cooldown before the first announcement")
        #expect(!announcements.wait(seconds: 0.1), "nothing more to announce")
        notifier.accepted([])
        #expect(!announcements.wait(seconds: 0.1), "a push without deliveries is not announced")
    }

    @Test("a burst from many threads shares a few announcements, names every kind, and ends with the last push")
    func burst() {
        let announcements = Announcements()
        let notifier = OutboxNotifier(name: "test-notifier") { announcements.record($0) }
        let pushes = 4_000
        let start = ContinuousClock.now
        let lastAccepted = Mutex(start)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<(pushes / 4) {
                notifier.accepted(index.isMultiple(of: 2) ? [.apns] : [.webPush])
                if index.isMultiple(of: 50) { Thread.sleep(forTimeInterval: 0.000_5) }
            }
            let now = ContinuousClock.now
            lastAccepted.withLock { $0 = max($0, now) }
        }
        let burst = ContinuousClock.now - start
        let settled = ContinuousClock.now.advanced(by: .seconds(2))
        while ContinuousClock.now < settled && (announcements.all.last?.at ?? start) < lastAccepted.withLock({ $0 }) {
            _ = announcements.wait(seconds: 0.05)
        }
        let made = announcements.all
        #expect(
            (made.last?.at ?? start) >= lastAccepted.withLock { $0 },
            "the pushes accepted last were announced after they were accepted")
        #expect(made.reduce(into: Set()) { $0.formUnion($1.kinds) } == [.apns, .webPush])
        // One at once, then at most one per cooldown while the burst lasts, and one after it.
        let allowed = Int((burst + .milliseconds(50)) / OutboxNotifier.cooldown) + 2
        #expect(made.count <= allowed, "\(made.count) announcements for \(pushes) pushes in \(burst)")
        #expect(made.count < pushes / 10)
    }

    @Test("releasing the notifier ends its thread")
    func releaseEndsTheThread() {
        final class Marker: Sendable {}
        weak var captured: Marker?
        do {
            let marker = Marker()
            captured = marker
            let notifier = OutboxNotifier(name: "test-notifier") { _ in _ = marker }
            notifier.accepted([.apns])
        }
        let deadline = ContinuousClock.now.advanced(by: .seconds(2))
        while captured != nil && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(captured == nil, "the thread, and the closure it holds, are gone")
    }
}
