internal import Dispatch
internal import Synchronization

/// Wakes a kind's idle workers when pushes are accepted, holding at most one wake-up per worker.
/// Each push accepted notifies; when every worker is busy, the wake-ups that would pile up (one per
/// push) would each cost a claim once the workers came back, most of them finding nothing. A wake
/// held for each worker is enough: a worker woken claims every due delivery, 25 at a time, until
/// none is left.
final class WorkerWake: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    /// Wake-ups given and not yet taken, at most ``limit``.
    private let held = Atomic<Int>(0)
    private let limit: Int

    /// A wake for `workers` workers.
    init(workers: Int) { limit = max(workers, 1) }

    /// Wakes an idle worker, or holds a wake-up for the next to wait, unless one is held for every
    /// worker already.
    func notify() {
        var current = held.load(ordering: .relaxed)
        while current < limit {
            let (exchanged, original) = held.compareExchange(
                expected: current, desired: current + 1, ordering: .relaxed)
            if exchanged {
                semaphore.signal()
                return
            }
            current = original
        }
    }

    /// Wakes every worker, whatever is held (to stop them).
    func wakeAll() {
        for _ in 0..<limit {
            held.add(1, ordering: .relaxed)
            semaphore.signal()
        }
    }

    /// Waits for a wake-up until `timeout`; true when one came.
    func wait(timeout: DispatchTime) -> Bool {
        guard semaphore.wait(timeout: timeout) == .success else { return false }
        held.subtract(1, ordering: .relaxed)
        return true
    }
}
