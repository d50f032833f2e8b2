package import PushSealCore

/// One receipt as a device posted it, checked for form: which delivery, the hash of the
/// capability it presented, and what it reports.
package struct ReceiptReport: Sendable, Equatable {
    /// The delivery's id in `/v1/receipts/{delivery}`.
    package let deliveryID: String
    /// The SHA-256 of the capability presented.
    package let capabilityHash: [UInt8]
    /// What it reports: displayed, or degraded with its reason.
    package let outcome: ReceiptOutcome

    /// A value of these members.
    package init(deliveryID: String, capabilityHash: [UInt8], outcome: ReceiptOutcome) {
        self.deliveryID = deliveryID
        self.capabilityHash = capabilityHash
        self.outcome = outcome
    }
}

/// What recording a receipt came to.
package enum ReceiptRecording: Sendable, Equatable {
    /// No delivery has that id, or the capability is not its (or is its failure capability and
    /// the receipt reports `displayed`): 404, alike whatever the reason.
    case refused
    /// The receipt was taken for `delivery`: `changed` when it set the delivery's display (its
    /// first receipt, or a displayed one after a degraded one); false for a repeat, which changes
    /// nothing.
    case taken(changed: Bool, delivery: ReceiptedDelivery)
}
