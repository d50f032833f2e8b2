internal import Foundation
internal import PushSealCore
internal import Synchronization

/// Spaces one worker's claims once the outbox runs dry: a claim that found fewer deliveries than
/// it asked for is followed by the next no sooner than ``cooldown`` later, while a full claim (a
/// backlog) is followed at once. Without it, every push accepted wakes a worker that claims its one
/// delivery, and the claim made ahead finds nothing: two writes on the outbox for each delivery.
/// With it, the pushes accepted during the cooldown are claimed together. This is the dispatch
/// cooldown of the PostgreSQL job queues (Oban's `dispatch_cooldown`, River's fetch cooldown).
final class ClaimPacer: Sendable {
    /// The least time between a claim that drained the outbox and the next: what a delivery
    /// accepted just after a claim may wait for its own.
    static let cooldown = Duration.milliseconds(5)

    private let cooldown: Duration
    /// When the last claim that asked for more than it found ended, if the last claim did.
    private let drainedAt = Mutex<ContinuousClock.Instant?>(nil)

    /// A pacer that keeps `cooldown` between a claim that drained the outbox and the next.
    init(cooldown: Duration = ClaimPacer.cooldown) { self.cooldown = cooldown }

    /// How long the next claim should wait, as of `now`: the rest of the cooldown when the last
    /// claim drained the outbox, else zero.
    func wait(at now: ContinuousClock.Instant = .now) -> Duration {
        guard let drainedAt = drainedAt.withLock({ $0 }) else { return .zero }
        return max(.zero, now.duration(to: drainedAt + cooldown))
    }

    /// Sleeps for ``wait(at:)``.
    func waitForTurn() {
        let left = wait()
        guard left > .zero else { return }
        Thread.sleep(forTimeInterval: left.seconds)
    }

    /// A claim asked for `limit` deliveries and found `found`, ending at `now`.
    func claimed(_ found: Int, of limit: Int, at now: ContinuousClock.Instant = .now) {
        drainedAt.withLock { $0 = found < limit ? now : nil }
    }
}
