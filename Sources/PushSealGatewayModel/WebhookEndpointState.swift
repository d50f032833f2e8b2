/// An endpoint's state after an attempt.
package struct WebhookEndpointState: Sendable, Equatable {
    /// Failures in a row.
    package let failures: Int
    /// True when this failure disabled it.
    package let newlyDisabled: Bool
    /// When it is tried next, after a failure.
    package let retryAt: Int64?

    /// A value of these members.
    package init(failures: Int, newlyDisabled: Bool, retryAt: Int64?) {
        self.failures = failures
        self.newlyDisabled = newlyDisabled
        self.retryAt = retryAt
    }
}
