/// How many of an app's sent deliveries with receipts stand with one display, for the status
/// page's confirmed share and top degrade reasons.
package struct DisplayCount: Sendable, Equatable {
    /// `displayed` or `degraded`; nil for deliveries no receipt has reported yet.
    package let outcome: String?
    /// A degraded display's reason (envelope-v1.md's); nil otherwise.
    package let reason: String?
    /// How many.
    package let count: Int

    /// A value of these members.
    package init(outcome: String?, reason: String?, count: Int) {
        self.outcome = outcome
        self.reason = reason
        self.count = count
    }
}
