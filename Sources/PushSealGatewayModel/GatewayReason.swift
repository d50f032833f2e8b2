/// The reasons the gateway gives a delivery itself, beside APNs' and the push services': stored
/// with the delivery, shown by `GET /v1/pushes/{id}`, in webhook events and as metric labels.
package enum GatewayReason {
    /// The backend deleted the delivery's device while it was queued.
    package static let deviceDeleted = "DeviceDeleted"
    /// A stored delivery that no request could have made (written by hand, or by an older version).
    package static let invalidDelivery = "InvalidDelivery"
    /// Its expiration passed before it could be sent.
    package static let expired = "Expired"
}
