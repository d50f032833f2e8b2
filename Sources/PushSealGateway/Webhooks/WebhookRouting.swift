internal import PushSealGatewayModel

/// Which configured endpoints receive each type of event: the stores write one outbox row per
/// endpoint subscribed to an event's type, in the transaction that records what happened.
struct WebhookRouting: Sendable {
    private let subscriptions: [(endpoint: String, events: Set<WebhookEventType>)]

    /// No endpoint: nothing is written.
    static let none = WebhookRouting([])

    /// The routing of the configured `endpoints`.
    init(_ endpoints: [WebhookSettings]) {
        subscriptions = endpoints.map { ($0.name, $0.events) }
    }

    /// The endpoints that receive events of `type`, in configuration order.
    func endpoints(for type: WebhookEventType) -> [String] {
        subscriptions.filter { $0.events.contains(type) }.map(\.endpoint)
    }

    /// True when no endpoint receives any event.
    var isEmpty: Bool { subscriptions.isEmpty }
}
