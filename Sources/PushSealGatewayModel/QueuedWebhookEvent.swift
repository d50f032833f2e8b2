/// An event leased for sending.
package struct QueuedWebhookEvent: Sendable, Equatable {
    /// Its outbox row.
    package let rowID: Int64
    /// Its `msg_` id.
    package let eventID: String
    /// The event's JSON, as queued.
    package let body: String
    /// Requests made for it so far.
    package let attempts: Int

    /// A value of these members.
    package init(rowID: Int64, eventID: String, body: String, attempts: Int) {
        self.rowID = rowID
        self.eventID = eventID
        self.body = body
        self.attempts = attempts
    }
}
