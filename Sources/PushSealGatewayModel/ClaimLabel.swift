/// The labels of a claim's count: its kind, and what it found.
package struct ClaimLabel: Hashable, Sendable {
    /// What a claim found.
    package enum Found: String, CaseIterable, Sendable {
        /// Nothing was due.
        case none
        /// Fewer than it asked for: the outbox ran dry.
        case some
        /// As many as it asked for: more may be due.
        case full
    }

    /// The kind of the workers that claimed.
    package let kind: DeliveryKind
    /// What the claim found.
    package let found: Found

    /// A value of these members.
    package init(kind: DeliveryKind, found: Found) {
        self.kind = kind
        self.found = found
    }
}
