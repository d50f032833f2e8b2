/// An outcome as the metrics and the status page count it: the status and the reason's label.
package struct OutcomeLabel: Hashable, Comparable, Sendable {
    /// The delivery's status (`queued` for an attempt to be tried again).
    package let status: DeliveryStatus
    /// ``DeliveryReason/label`` of its reason; empty for none.
    package let reason: String

    /// The outcome of `status` with `reason`.
    package init(_ status: DeliveryStatus, reason: DeliveryReason?) {
        self.status = status
        self.reason = reason?.label ?? ""
    }

    /// The outcome of `status` with the reason stored as `text` (``DeliveryReason/text``).
    package init(_ status: DeliveryStatus, storedReason text: String?) {
        self.init(status, reason: text.flatMap { $0.isEmpty ? nil : DeliveryReason(text: $0) })
    }

    /// By status, then by reason.
    package static func < (lhs: OutcomeLabel, rhs: OutcomeLabel) -> Bool {
        (lhs.status.rawValue, lhs.reason) < (rhs.status.rawValue, rhs.reason)
    }
}
