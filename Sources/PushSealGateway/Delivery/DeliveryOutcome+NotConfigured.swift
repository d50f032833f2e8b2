internal import PushSealGatewayModel

extension DeliveryOutcome {
    /// The outcome of a delivery this instance's configuration cannot send (no key for its topic,
    /// no client for its app): held queued `NotConfigured`, as a refused provider token's
    /// deliveries are (``RetrySchedule/heldRetryWindow(acceptedAt:at:)``), so that an instance
    /// still on the configuration before a change, in a rolling one, ends none of its pushes;
    /// failed once the hold is over.
    static func notConfigured(acceptedAt: Int64, at time: Int64) -> DeliveryOutcome {
        let reason = DeliveryReason.gateway(.notConfigured)
        guard let window = RetrySchedule.heldRetryWindow(acceptedAt: acceptedAt, at: time) else {
            return .failed(reason: reason)
        }
        return .retry(at: .random(in: window), reason: reason)
    }
}
