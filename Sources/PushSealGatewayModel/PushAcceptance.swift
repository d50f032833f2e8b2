/// What storing a push came to.
package enum PushAcceptance: Sendable, Equatable {
    /// Stored, with its deliveries.
    case accepted
    /// Its idempotency key was used before, by the same request: the earlier push's id.
    case repeated(String)
    /// Its idempotency key was used before, by a different request: the earlier push's id.
    case conflict(String)
}

extension PushAcceptance {
    /// For a repeat or a conflict, the earlier push's id and whether its request was the same;
    /// nil for a push stored now.
    package var earlier: (id: String, sameRequest: Bool)? {
        switch self {
        case .accepted: nil
        case .repeated(let id): (id, true)
        case .conflict(let id): (id, false)
        }
    }
}
