internal import Dispatch
internal import Synchronization

/// Records a worker's outcomes in batches: a sender reports each as its answer comes, from its
/// own thread, and the recorder writes whatever has gathered in one transaction on a queue of
/// its own, so that neither waits on the other and a burst of answers costs one commit, not
/// one each.
final class OutcomeRecorder: Sendable {
    private let write: @Sendable ([EndedAttempt]) -> Void
    private let queue: DispatchQueue
    private let state = Mutex<(waiting: [EndedAttempt], scheduled: Bool)>(([], false))

    /// A recorder that hands each batch to `write` (which records it, and logs a failure), on a
    /// queue labelled `label`.
    init(label: String, write: @escaping @Sendable ([EndedAttempt]) -> Void) {
        self.write = write
        queue = DispatchQueue(label: label)
    }

    /// Queues `ended` for the next batch.
    func add(_ ended: EndedAttempt) {
        let schedule = state.withLock { state in
            state.waiting.append(ended)
            defer { state.scheduled = true }
            return !state.scheduled
        }
        if schedule { queue.async { [self] in drain() } }
    }

    /// Returns once everything added so far is written.
    func waitUntilWritten() {
        queue.sync { drain() }
    }

    private func drain() {
        while true {
            let batch = state.withLock { state in
                defer { state.waiting.removeAll(keepingCapacity: true) }
                if state.waiting.isEmpty { state.scheduled = false }
                return state.waiting
            }
            guard !batch.isEmpty else { return }
            write(batch)
        }
    }
}
