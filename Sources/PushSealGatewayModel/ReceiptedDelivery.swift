/// The delivery a taken receipt names, as its row stood when the receipt came: what the
/// receipt's webhook event, metrics and histogram say of it.
package struct ReceiptedDelivery: Sendable, Equatable {
    /// The id receipts name it by (`/v1/receipts/{delivery}`).
    package let receiptID: String
    /// The app of its push.
    package let app: AppID
    /// The push it belongs to.
    package let pushID: String
    /// The device it went to.
    package let deviceID: String
    /// Which workers sent it.
    package let kind: DeliveryKind
    /// Its status: `sent`, as a rule; a receipt can come for a delivery whose answer was lost.
    package let status: DeliveryStatus
    /// Requests made.
    package let attempts: Int
    /// APNs' id, for an APNs delivery once sent.
    package let apnsID: String?
    /// When its push was accepted, milliseconds since the epoch.
    package let acceptedAt: Int64
    /// When it ended (when APNs or the push service took it, for a sent one), milliseconds since
    /// the epoch; nil while it is queued.
    package let finishedAt: Int64?

    /// A value of these members.
    package init(
        receiptID: String, app: AppID, pushID: String, deviceID: String, kind: DeliveryKind, status: DeliveryStatus,
        attempts: Int, apnsID: String?, acceptedAt: Int64, finishedAt: Int64?
    ) {
        self.receiptID = receiptID
        self.app = app
        self.pushID = pushID
        self.deviceID = deviceID
        self.kind = kind
        self.status = status
        self.attempts = attempts
        self.apnsID = apnsID
        self.acceptedAt = acceptedAt
        self.finishedAt = finishedAt
    }

    /// Seconds from when it was sent to `time` (milliseconds), for a sent delivery; nil otherwise.
    package func secondsSinceSent(at time: Int64) -> Double? {
        guard status == .sent, let finishedAt else { return nil }
        return Double(max(0, time - finishedAt)) / 1000
    }
}
