/// How a delivery attempt ended, as the outbox records it.
package enum DeliveryOutcome: Sendable, Equatable {
    /// APNs' 200 with its id, or a push service's 2xx.
    case sent(apnsID: String?)
    /// Refused for good.
    case failed(reason: DeliveryReason)
    /// Try again at `at` (milliseconds since the epoch).
    case retry(at: Int64, reason: DeliveryReason)
    /// The address is no longer valid; `timestamp` is APNs' (milliseconds), when it gave one.
    case unregistered(reason: DeliveryReason, timestamp: Int64?)
    /// Its expiration passed.
    case expired
}

extension DeliveryOutcome {
    /// The status it leaves the delivery in (`queued` for a retry), and the reason shown with it.
    package var statusAndReason: (status: DeliveryStatus, reason: DeliveryReason?) {
        switch self {
        case .sent: (.sent, nil)
        case .failed(let reason): (.failed, reason)
        case .unregistered(let reason, _): (.unregistered, reason)
        case .expired: (.expired, .gateway(.expired))
        case .retry(_, let reason): (.queued, reason)
        }
    }
}
