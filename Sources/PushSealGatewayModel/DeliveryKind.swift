/// The two ways the gateway reaches a device, each delivered by workers of its own.
package enum DeliveryKind: String, Sendable, CaseIterable {
    /// An iPhone or iPad (or Mac) through APNs.
    case apns
    /// A browser or an Android app through its Web Push service (RFC 8030).
    case webPush = "webpush"
}
