internal import Foundation
internal import PushSealGatewayModel

/// Records a worker's outcomes in batches: a sender reports each as its answer comes, from its
/// own thread, and the recorder's thread writes whatever has gathered in one transaction, so that
/// neither waits on the other and a burst of answers costs one commit, not one each. The thread
/// is its own, not a dispatch queue's: the worker waits for it, and must not depend on a shared
/// pool having a thread free.
final class OutcomeRecorder: @unchecked Sendable {
    private let write: @Sendable ([EndedAttempt]) -> Void
    private let condition = NSCondition()
    private var waiting: [EndedAttempt] = []
    private var writing = false
    private var closed = false

    /// A recorder whose thread (named `name`) hands each batch to `write`, which records it and
    /// logs a failure, until ``close()``.
    init(name: String, write: @escaping @Sendable ([EndedAttempt]) -> Void) {
        self.write = write
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    /// Queues `ended` for the next batch.
    func add(_ ended: EndedAttempt) {
        condition.lock()
        waiting.append(ended)
        condition.broadcast()
        condition.unlock()
    }

    /// Returns once everything added so far is written.
    func waitUntilWritten() {
        condition.lock()
        while !waiting.isEmpty || writing { condition.wait() }
        condition.unlock()
    }

    /// Writes what is queued, then ends the thread.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    private func run() {
        condition.lock()
        defer { condition.unlock() }
        while true {
            while waiting.isEmpty && !closed { condition.wait() }
            if waiting.isEmpty { return }
            let batch = waiting
            waiting.removeAll(keepingCapacity: true)
            writing = true
            condition.unlock()
            write(batch)
            condition.lock()
            writing = false
            condition.broadcast()
        }
    }
}
