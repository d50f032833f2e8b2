/// How a delivery stands.
package enum DeliveryStatus: String, Sendable {
    /// Waiting for its turn, or for a retry.
    case queued
    /// APNs or the push service accepted it.
    case sent
    /// Refused for good, or every retry failed.
    case failed
    /// The device's token or subscription is no longer valid; nothing was (or will be) sent to it.
    case unregistered
    /// Its `apns-expiration` passed before it could be sent.
    case expired
}
