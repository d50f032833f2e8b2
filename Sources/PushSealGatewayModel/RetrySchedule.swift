/// When what was not sent is tried again (gateway-v1.md, "Delivery" and "Webhooks"): a delivery's
/// transient failure backs off up to ``maximumAttempts`` requests; a provider token APNs refuses
/// holds the delivery for up to ``providerTokenHold``; a failing webhook endpoint waits
/// ``webhookBackoff(failures:retryAfterSeconds:)``. Values only: the workers, senders and stores
/// apply it.
package enum RetrySchedule {
    /// Requests made for one delivery before a transient failure is final.
    package static let maximumAttempts = 12

    /// When a delivery whose `attempts`-th request failed for a transient cause is tried again,
    /// as of `time`: after `retryAfterSeconds` when the service asked for a wait (at most an
    /// hour), else after 30 s doubled at each round (at most an hour, with jitter); nil once
    /// ``maximumAttempts`` requests were made.
    package static func retryTime(attempts: Int, retryAfterSeconds: Int? = nil, at time: Int64) -> Int64? {
        guard attempts < maximumAttempts else { return nil }
        if let retryAfterSeconds { return time + Int64(min(max(retryAfterSeconds, 1), 3_600)) * 1_000 }
        let delay = min(3_600_000, 30_000 << min(attempts, 20))
        return time + Int64.random(in: Int64(delay / 2)...Int64(delay))
    }

    /// How long a delivery is held while APNs refuses the provider token (24 hours from its
    /// acceptance, or until its expiration when that comes first): time for an operator to fix
    /// the key, as the `PushSealProviderTokenRefused` alert asks.
    package static let providerTokenHold: Int64 = 24 * 3_600_000

    /// When a delivery held by a refused provider token is tried again, as of `time`: after half
    /// the time it has been held (since `acceptedAt`), at least 30 s and at most 10 minutes,
    /// jittered into the upper half; its requests are not counted against ``maximumAttempts``
    /// (a sender does not count them). Nil once ``providerTokenHold`` has passed.
    package static func heldRetryTime(acceptedAt: Int64, at time: Int64) -> Int64? {
        let held = max(0, time - acceptedAt)
        guard held < providerTokenHold else { return nil }
        let delay = min(600_000, max(30_000, held / 2))
        return time + Int64.random(in: delay / 2...delay)
    }

    /// The longest a webhook endpoint waits between attempts.
    package static let maximumWebhookBackoff: Int64 = 3_600_000

    /// How long a webhook endpoint waits after its `failures`-th failure in a row, in
    /// milliseconds: 5 s doubled at each, at most an hour, with jitter; the receiver's
    /// `Retry-After` when that is longer (at most an hour too).
    package static func webhookBackoff(failures: Int, retryAfterSeconds: Int?) -> Int64 {
        let doubled = min(maximumWebhookBackoff, 5_000 << Int64(min(max(failures - 1, 0), 20)))
        let jittered = Int64.random(in: doubled * 3 / 4...doubled)
        let asked = Int64(min(max(retryAfterSeconds ?? 0, 0), 3_600)) * 1_000
        return max(jittered, asked)
    }
}
