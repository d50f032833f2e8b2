/// An outcome as the metrics and the status page count it: the status and the reason's label.
package struct OutcomeLabel: Hashable, Comparable, Sendable {
    /// The delivery's status (`queued` for an attempt to be tried again).
    package let status: DeliveryStatus
    /// ``ReasonLabel/of(_:)`` of its reason.
    package let reason: String

    /// The outcome of `status` with the free-text `reason`.
    package init(_ status: DeliveryStatus, reason: String?) {
        self.status = status
        self.reason = ReasonLabel.of(reason)
    }

    /// By status, then by reason.
    package static func < (lhs: OutcomeLabel, rhs: OutcomeLabel) -> Bool {
        (lhs.status.rawValue, lhs.reason) < (rhs.status.rawValue, rhs.reason)
    }
}
