/// The reasons the gateway gives a delivery itself, beside APNs' and the push services': stored
/// with the delivery, shown by `GET /v1/pushes/{id}`, in webhook events and as metric labels.
package enum GatewayReason: String, Sendable, CaseIterable {
    /// The backend deleted the delivery's device while it was queued.
    case deviceDeleted = "DeviceDeleted"
    /// A stored delivery that no request could have made (written by hand, or by an older version).
    case invalidDelivery = "InvalidDelivery"
    /// Its expiration passed before it could be sent.
    case expired = "Expired"
    /// Sent back to the outbox unsent, because its push service's lane was full.
    case pushServiceBusy = "PushServiceBusy"
    /// Handed back unsent, because the worker stopped.
    case notSent = "NotSent"
    /// The configuration has no key for its topic: held (queued) for a while, in case another
    /// instance's configuration has one, then failed.
    case notConfigured = "NotConfigured"
}
