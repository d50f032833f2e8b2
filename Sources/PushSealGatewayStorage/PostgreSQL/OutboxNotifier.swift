internal import Foundation
internal import PushSealCore
package import PushSealGatewayModel

/// Tells every instance's workers that pushes were accepted, after their commit and off the
/// request's path: the first push of a quiet spell is announced at once, and those accepted
/// while an announcement is being sent or during the ``cooldown`` after it share the next one,
/// which names the union of their kinds.
///
/// A notification sent inside the push's transaction made PostgreSQL serialize every committing
/// push: a transaction that notified holds a database-wide lock from just before its commit to its
/// end, its WAL flush included. One sent after the commit holds it for an instant, and can never
/// wake a worker before the push is visible. A notification lost to a crash or to a database away is only a
/// delay: the workers poll as well.
///
/// The thread is its own, not a dispatch queue's, so a busy shared pool never delays a wake-up.
/// It ends when the notifier is released.
package final class OutboxNotifier: Sendable {
    /// The least time between two announcements: under load, one per this interval at most.
    package static let cooldown: Duration = .milliseconds(5)

    private let pending: Pending

    /// A notifier whose thread (named `name`) hands each gathered set of kinds to `announce`;
    /// what `announce` throws is dropped, as a notification is only a hint.
    package init(name: String, announce: @escaping @Sendable (Set<DeliveryKind>) throws -> Void) {
        let pending = Pending()
        self.pending = pending
        let thread = Thread {
            while let kinds = pending.next() {
                try? announce(kinds)
                Thread.sleep(forTimeInterval: Self.cooldown.seconds)
            }
        }
        thread.name = name
        thread.start()
    }

    deinit { pending.close() }

    /// Notes a committed push whose deliveries are of `kinds`; it is announced soon.
    package func accepted(_ kinds: Set<DeliveryKind>) {
        guard !kinds.isEmpty else { return }
        pending.add(kinds)
    }

    /// The kinds accepted and not yet announced, shared by the callers and the thread (which
    /// holds it alone, so that the notifier's release can end it).
    private final class Pending: @unchecked Sendable {
        private let condition = NSCondition()
        private var kinds: Set<DeliveryKind> = []
        private var closed = false

        package func add(_ accepted: Set<DeliveryKind>) {
            condition.lock()
            kinds.formUnion(accepted)
            condition.signal()
            condition.unlock()
        }

        /// Waits for kinds to announce and takes them; nil once closed.
        package func next() -> Set<DeliveryKind>? {
            condition.lock()
            defer { condition.unlock() }
            while kinds.isEmpty && !closed { condition.wait() }
            if closed { return nil }
            defer { kinds.removeAll() }
            return kinds
        }

        package func close() {
            condition.lock()
            closed = true
            condition.signal()
            condition.unlock()
        }
    }
}
