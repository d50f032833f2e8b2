/// How many queued deliveries wait to be tried again after one reason, for the status page: the
/// reason of their last attempt, and when the soonest of them is due.
package struct RetryingCount: Sendable, Equatable {
    /// The last attempt's reason (APNs' reason, a push service's status and words, a transport error).
    package let reason: String
    /// Deliveries queued after it.
    package let count: Int
    /// When the soonest of them is due, milliseconds since the epoch.
    package let nextAttemptAt: Int64

    /// A value of these members.
    package init(reason: String, count: Int, nextAttemptAt: Int64) {
        self.reason = reason
        self.count = count
        self.nextAttemptAt = nextAttemptAt
    }
}
