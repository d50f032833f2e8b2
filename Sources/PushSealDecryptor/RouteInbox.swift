public import PushSealCore

/// Routes waiting for the app's navigation: the pending/consume pattern, without UIKit.
///
/// The notification-response handler ``enqueue(_:)``s the route of the tapped notification;
/// the navigation layer ``consume()``s it when it is ready (at launch, or when the root screen
/// appears). A route is handed out exactly once, so it is never pushed twice onto the navigation
/// stack; a route whose `event_id` was already enqueued (a redelivery, a second tap) is refused.
/// Safe to use from any thread.
public final class RouteInbox: Sendable {
    private struct State {
        var pending: Route?
        var seen: [String] = []
        var seenSet: Set<ExactText> = []
    }

    private let state = Protected(State())
    private let memory: Int

    /// An inbox that remembers the last `memory` event ids it was given.
    public init(memory: Int = 256) {
        self.memory = max(1, memory)
    }

    /// Offers `route`; it replaces a route still pending (the newest tap wins).
    /// - Returns: false when a route with the same `event_id` was offered before: it is not
    ///   delivered again.
    @discardableResult
    public func enqueue(_ route: Route) -> Bool {
        state.withLock { state in
            guard state.seenSet.insert(ExactText(route.eventID)).inserted else { return false }
            state.seen.append(route.eventID)
            if state.seen.count > memory {
                state.seenSet.remove(ExactText(state.seen.removeFirst()))
            }
            state.pending = route
            return true
        }
    }

    /// The pending route, once; nil when there is none (a second call gives nothing).
    public func consume() -> Route? {
        state.withLock { state in
            defer { state.pending = nil }
            return state.pending
        }
    }
}
