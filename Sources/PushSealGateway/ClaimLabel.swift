/// The labels of a claim's count: its kind, and what it found.
struct ClaimLabel: Hashable, Sendable {
    /// What a claim found.
    enum Found: String, CaseIterable, Sendable {
        /// Nothing was due.
        case none
        /// Fewer than it asked for: the outbox ran dry.
        case some
        /// As many as it asked for: more may be due.
        case full
    }

    /// The kind of the workers that claimed.
    let kind: DeliveryKind
    /// What the claim found.
    let found: Found
}
