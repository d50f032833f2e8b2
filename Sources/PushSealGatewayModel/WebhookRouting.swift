/// Which configured endpoints receive each type of each app's events: the stores write one outbox
/// row per endpoint of the event's app subscribed to its type, in the transaction that records
/// what happened.
package struct WebhookRouting: Sendable {
    /// One endpoint's subscription.
    package struct Subscription: Sendable {
        /// The app whose events the endpoint hears of.
        package let app: AppID
        /// The endpoint's name.
        package let endpoint: String
        /// The event types it takes.
        package let events: Set<WebhookEventType>

        /// A value of these members.
        package init(app: AppID, endpoint: String, events: Set<WebhookEventType>) {
            self.app = app
            self.endpoint = endpoint
            self.events = events
        }
    }

    private let subscriptions: [Subscription]

    /// No endpoint: nothing is written.
    package static let none = WebhookRouting([])

    /// The routing of `subscriptions`.
    package init(_ subscriptions: [Subscription]) {
        self.subscriptions = subscriptions
    }

    /// The endpoints of `app` that receive events of `type`, in configuration order.
    package func endpoints(for type: WebhookEventType, in app: AppID) -> [String] {
        subscriptions.filter { $0.app == app && $0.events.contains(type) }.map(\.endpoint)
    }

    /// True when no endpoint receives any event.
    package var isEmpty: Bool { subscriptions.isEmpty }
}
