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

    /// A value of these members.
    package init(
        rowID: Int64 = 0, deviceID: String, status: DeliveryStatus, apnsID: String?, reason: String?, attempts: Int
    ) {
        self.rowID = rowID
        self.deviceID = deviceID
        self.status = status
        self.apnsID = apnsID
        self.reason = reason
        self.attempts = attempts
    }
}
