/// What a claim on an endpoint's events came to.
package struct WebhookClaim: Sendable, Equatable {
    /// The events leased, oldest first.
    package var events: [QueuedWebhookEvent] = []
    /// Events that ended as failed because their retry window passed.
    package var expired: Int = 0
    /// True when the endpoint is disabled: nothing was leased.
    package var disabled: Bool = false
    /// When the endpoint's next attempt is due, if that is later: nothing was leased.
    package var waitsUntil: Int64?

    /// A value of these members.
    package init(
        events: [QueuedWebhookEvent] = [], expired: Int = 0, disabled: Bool = false, waitsUntil: Int64? = nil
    ) {
        self.events = events
        self.expired = expired
        self.disabled = disabled
        self.waitsUntil = waitsUntil
    }
}
