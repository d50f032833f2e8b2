/// When what was not sent is tried again (gateway-v1.md, "Delivery" and "Webhooks"): a delivery's
/// transient failure backs off up to ``maximumAttempts`` requests; a provider token APNs refuses
/// holds the delivery for up to ``providerTokenHold``; a failing webhook endpoint waits
/// ``webhookBackoff(failures:retryAfterSeconds:)``. Values only: each rule gives the window the
/// next attempt falls in, and the workers, senders and stores pick a time in it at random (the
/// jitter that keeps retries from coming back together).
package enum RetrySchedule {
    /// Requests made for one delivery before a transient failure is final.
    package static let maximumAttempts = 12

    /// When a delivery whose `attempts`-th request failed for a transient cause is tried again,
    /// as of `time`: after `retryAfterSeconds` when the service asked for a wait (at most an
    /// hour), else in the upper half of 30 s doubled at each round (at most an hour); nil once
    /// ``maximumAttempts`` requests were made.
    package static func retryWindow(attempts: Int, retryAfterSeconds: Int? = nil, at time: Int64)
        -> ClosedRange<Int64>?
    {
        guard attempts < maximumAttempts else { return nil }
        if let retryAfterSeconds {
            let due = time + Int64(min(max(retryAfterSeconds, 1), 3_600)) * 1_000
            return due...due
        }
        let delay = Int64(min(3_600_000, 30_000 << min(attempts, 20)))
        return time + delay / 2...time + delay
    }

    /// How long a delivery is held while APNs refuses the provider token (24 hours from its
    /// acceptance, or until its expiration when that comes first): time for an operator to fix
    /// the key, as the `PushSealProviderTokenRefused` alert asks.
    package static let providerTokenHold: Int64 = 24 * 3_600_000

    /// When a delivery held by a refused provider token is tried again, as of `time`: in the upper
    /// half of half the time it has been held (since `acceptedAt`), at least 30 s and at most
    /// 10 minutes; its requests are not counted against ``maximumAttempts`` (a sender does not
    /// count them). Nil once ``providerTokenHold`` has passed.
    package static func heldRetryWindow(acceptedAt: Int64, at time: Int64) -> ClosedRange<Int64>? {
        let held = max(0, time - acceptedAt)
        guard held < providerTokenHold else { return nil }
        let delay = min(600_000, max(30_000, held / 2))
        return time + delay / 2...time + delay
    }

    /// The longest a webhook endpoint waits between attempts.
    package static let maximumWebhookBackoff: Int64 = 3_600_000

    /// How long a webhook endpoint waits after its `failures`-th failure in a row, in
    /// milliseconds: the upper quarter of 5 s doubled at each, at most an hour; no less than the
    /// receiver's `Retry-After` (at most an hour too).
    package static func webhookBackoff(failures: Int, retryAfterSeconds: Int?) -> ClosedRange<Int64> {
        let doubled = min(maximumWebhookBackoff, 5_000 << Int64(min(max(failures - 1, 0), 20)))
        let asked = Int64(min(max(retryAfterSeconds ?? 0, 0), 3_600)) * 1_000
        return max(doubled * 3 / 4, asked)...max(doubled, asked)
    }
}
