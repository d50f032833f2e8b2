/// How one request to an endpoint ended.
package enum WebhookAttempt: Sendable, Equatable {
    /// A 2xx answer.
    case delivered
    /// Any other answer, or no answer; the receiver's `Retry-After` in seconds, if it gave one.
    case failed(reason: String, retryAfterSeconds: Int?)
}
