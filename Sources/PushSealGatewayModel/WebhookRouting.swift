/// Which configured endpoints receive each type of event: the stores write one outbox row per
/// endpoint subscribed to an event's type, in the transaction that records what happened.
package struct WebhookRouting: Sendable {
    private let subscriptions: [(endpoint: String, events: Set<WebhookEventType>)]

    /// No endpoint: nothing is written.
    package static let none = WebhookRouting([])

    /// The routing of `subscriptions`: each endpoint's name and the event types it takes.
    package init(_ subscriptions: [(endpoint: String, events: Set<WebhookEventType>)]) {
        self.subscriptions = subscriptions
    }

    /// The endpoints that receive events of `type`, in configuration order.
    package func endpoints(for type: WebhookEventType) -> [String] {
        subscriptions.filter { $0.events.contains(type) }.map(\.endpoint)
    }

    /// True when no endpoint receives any event.
    package var isEmpty: Bool { subscriptions.isEmpty }
}
