/// What happened to a delivery, for `GET /v1/pushes/{id}`.
package struct DeliveryState: Sendable, Equatable {
    /// Its outbox row: the order of a push's deliveries, and their cursor.
    package var rowID: Int64 = 0
    /// The device.
    package let deviceID: String
    /// The status.
    package let status: DeliveryStatus
    /// APNs' `apns-id` once sent.
    package let apnsID: String?
    /// APNs' reason, the push service's status and words, or the transport error, once failed
    /// (or between retries).
    package let reason: String?
    /// Requests made so far.
    package let attempts: Int
    /// Its id in receipt URLs; nil when it carries no receipt.
    package var receiptID: String?
    /// What its receipts said the device showed; nil until one came.
    package var display: DisplayRecord?

    /// A value of these members.
    package init(
        rowID: Int64 = 0, deviceID: String, status: DeliveryStatus, apnsID: String?, reason: String?, attempts: Int,
        receiptID: String? = nil, display: DisplayRecord? = nil
    ) {
        self.rowID = rowID
        self.receiptID = receiptID
        self.display = display
        self.deviceID = deviceID
        self.status = status
        self.apnsID = apnsID
        self.reason = reason
        self.attempts = attempts
    }
}
