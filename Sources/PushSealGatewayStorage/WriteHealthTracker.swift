internal import Synchronization

/// Follows a store's writes to say whether it can write now (``StoreWriteHealth``): the writes in
/// flight, to tell one that has run too long (a disk that does not answer), and the last one's
/// outcome, a failure for a cause that ``StoreFailureCause/meansUnwritable`` holding until a write
/// that changed rows commits again. Reads are not followed, nor is a commit that changed nothing
/// (an idle claim): a frozen or full disk still serves them from the cache.
package final class WriteHealthTracker: Sendable {
    private struct State {
        var inFlight: [Int: ContinuousClock.Instant] = [:]
        var next = 0
        var failure: StoreFailureCause?
    }

    private let state = Mutex(State())
    private let stallAfter: Duration

    /// A tracker that calls a write that has run for `stallAfter` stalled.
    package init(stallAfter: Duration) { self.stallAfter = stallAfter }

    /// Runs `write`, following it; `changed` says, once it returned, whether it changed rows.
    package func following<Result>(_ write: () throws -> Result, changed: () -> Bool) throws -> Result {
        let ticket = began()
        do {
            let result = try write()
            ended(ticket, failures: [], wrote: changed())
            return result
        } catch {
            ended(ticket, failures: [error], wrote: false)
            throw error
        }
    }

    /// A write began; the ticket to end it with.
    package func began() -> Int {
        state.withLock { state in
            state.next += 1
            state.inFlight[state.next] = .now
            return state.next
        }
    }

    /// The write of `ticket` ended: with `failures` (its own, or its parts'), and whether it
    /// committed rows it changed.
    package func ended(_ ticket: Int, failures: [any Error], wrote: Bool) {
        state.withLock { state in
            state.inFlight[ticket] = nil
            if let unwritable = failures.map(storeFailureCause).first(where: \.meansUnwritable) {
                state.failure = unwritable
            } else if wrote {
                state.failure = nil
            }
        }
    }

    /// Whether the store can write now.
    package var health: StoreWriteHealth {
        state.withLock { state in
            if let oldest = state.inFlight.values.min(), ContinuousClock.now - oldest > stallAfter {
                return .stalled(since: oldest)
            }
            return state.failure.map(StoreWriteHealth.failing) ?? .writable
        }
    }
}
