/// How one attempt at a delivery ended, to be recorded.
package struct EndedAttempt: Sendable {
    /// The delivery, as it was claimed.
    package let delivery: OutboxDelivery
    /// What came of the attempt.
    package let outcome: DeliveryOutcome
    /// Requests made for the delivery so far.
    package let attempts: Int
    /// When it ended, in milliseconds.
    package let time: Int64

    /// A value of these members.
    package init(delivery: OutboxDelivery, outcome: DeliveryOutcome, attempts: Int, time: Int64) {
        self.delivery = delivery
        self.outcome = outcome
        self.attempts = attempts
        self.time = time
    }
}
