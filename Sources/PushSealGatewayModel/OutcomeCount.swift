/// How many deliveries ended with one status and reason, for the status page.
package struct OutcomeCount: Sendable, Equatable {
    /// The status they ended in.
    package let status: DeliveryStatus
    /// Their reason, as stored (nil for `sent`).
    package let reason: String?
    /// How many.
    package let count: Int

    /// A value of these members.
    package init(status: DeliveryStatus, reason: String?, count: Int) {
        self.status = status
        self.reason = reason
        self.count = count
    }
}
