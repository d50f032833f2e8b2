/// What a webhook event tells a backend (gateway-v1.md, "Webhooks"): a delivery's final outcome,
/// what a device's receipt said it showed, or a device its push service said is gone. An endpoint
/// subscribes to some or all of them.
package enum WebhookEventType: String, Sendable, CaseIterable {
    /// APNs or the push service accepted a delivery.
    case deliverySent = "delivery.sent"
    /// A delivery was refused for good, or every retry failed.
    case deliveryFailed = "delivery.failed"
    /// A delivery went to an address that is no longer valid (or its device was deleted).
    case deliveryUnregistered = "delivery.unregistered"
    /// A delivery's expiration passed before it could be sent.
    case deliveryExpired = "delivery.expired"
    /// A device was marked `unregistered`: the backend should stop pushing to it and clean up.
    case deviceUnregistered = "device.unregistered"
    /// A delivery's receipt said the device showed its content (from an app with `receipts`).
    case deliveryDisplayed = "delivery.displayed"
    /// A delivery's receipt said the device showed the placeholder, and why.
    case deliveryDegraded = "delivery.degraded"

    /// The event of a delivery that ended with `status`; nil for `queued`, which is no end.
    package init?(endOf status: DeliveryStatus) {
        switch status {
        case .queued: return nil
        case .sent: self = .deliverySent
        case .failed: self = .deliveryFailed
        case .unregistered: self = .deliveryUnregistered
        case .expired: self = .deliveryExpired
        }
    }
}
