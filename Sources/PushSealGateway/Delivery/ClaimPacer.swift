internal import Foundation
internal import PushSealCore
internal import Synchronization

/// Spaces the claims of one kind's workers once the outbox runs dry. After a claim that found
/// fewer deliveries than it asked for, the kind's next claim goes no sooner than ``cooldown``
/// later, and it is one claim, whichever worker makes it: a worker that wants to claim while
/// another's turn is pending leaves the claim to that turn, which takes everything then due,
/// and the turn is claimed again if its claim found nothing after such a worker gave way
/// (its push may have been stored just after the claim read the outbox). A full claim (a backlog)
/// lifts the pacing, so a backlog drains at full speed, every worker claiming.
///
/// Without it, every push accepted wakes a worker that claims its one delivery, and the claim made
/// ahead finds nothing: two writes on the outbox for each delivery. This is the dispatch cooldown
/// of the PostgreSQL job queues, kept per queue as theirs is (Oban's `dispatch_cooldown`, River's
/// fetch cooldown), not per worker: while the outbox is thin, the kind claims at most once a
/// cooldown, however many workers it has.
final class ClaimPacer: Sendable {
    /// The least time between a claim that drained the outbox and the kind's next: what a
    /// delivery accepted just after a claim may wait for its own.
    static let cooldown = Duration.milliseconds(5)

    /// A worker's turn to claim: how long it waits first, and whether it is the kind's pending
    /// turn (one is, at most, while the outbox is thin).
    struct Turn: Equatable {
        /// How long the claim waits before it reads the outbox.
        let wait: Duration
        /// True when this is the kind's one turn while the outbox is thin; false in a backlog.
        let isPaced: Bool
    }

    private struct State {
        /// While the last claim drained the outbox: when the next turn may start.
        var nextTurn: ContinuousClock.Instant?
        /// A paced turn was taken and its claim has not ended.
        var turnPending = false
        /// A worker gave way to the pending turn.
        var gaveWay = false
    }

    private let cooldown: Duration
    private let state = Mutex(State())

    /// A pacer that keeps `cooldown` between a claim that drained the outbox and the next.
    init(cooldown: Duration = ClaimPacer.cooldown) { self.cooldown = cooldown }

    /// A turn to claim as of `now`: at once while the last claim was full (or none was made);
    /// the kind's paced turn, at the cooldown's end, when the outbox ran dry; nil when that turn
    /// is another worker's already, whose claim stands for this one.
    func takeTurn(at now: ContinuousClock.Instant = .now) -> Turn? {
        state.withLock { state in
            guard let nextTurn = state.nextTurn else { return Turn(wait: .zero, isPaced: false) }
            guard !state.turnPending else {
                state.gaveWay = true
                return nil
            }
            state.turnPending = true
            return Turn(wait: max(.zero, now.duration(to: nextTurn)), isPaced: true)
        }
    }

    /// Takes a turn (``takeTurn(at:)``) and sleeps until it comes; nil when the turn is another
    /// worker's.
    func waitForTurn() -> Turn? {
        guard let turn = takeTurn() else { return nil }
        if turn.wait > .zero { Thread.sleep(forTimeInterval: turn.wait.seconds) }
        return turn
    }

    /// The claim of `turn` asked for `limit` deliveries and found `found`, ending at `now`: one
    /// that found fewer holds the next turn for a cooldown; a full one lifts the pacing. True when
    /// the claim must be made again: it was the paced turn, found nothing, and a worker gave way
    /// to it meanwhile.
    func claimed(_ found: Int, of limit: Int, turn: Turn, at now: ContinuousClock.Instant = .now) -> Bool {
        state.withLock { state in
            state.nextTurn = found < limit ? now + cooldown : nil
            guard turn.isPaced else { return false }
            let again = found == 0 && state.gaveWay
            state.turnPending = false
            state.gaveWay = false
            return again
        }
    }
}
