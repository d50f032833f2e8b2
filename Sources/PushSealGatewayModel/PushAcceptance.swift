/// What storing a push came to.
package enum PushAcceptance: Sendable, Equatable {
    /// Stored, with its deliveries.
    case accepted
    /// Its idempotency key was used before, by the same request: the earlier push's id.
    case repeated(String)
    /// Its idempotency key was used before, by a different request: the earlier push's id.
    case conflict(String)
}
