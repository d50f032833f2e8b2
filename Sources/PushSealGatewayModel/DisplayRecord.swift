/// What a delivery's receipt said the device showed (`GET /v1/pushes/{id}`'s `display`).
package struct DisplayRecord: Sendable, Equatable {
    /// `displayed` or `degraded`.
    package let outcome: String
    /// A degraded receipt's reason (envelope-v1.md's); nil for `displayed`.
    package let reason: String?
    /// When the receipt that set it came, in milliseconds since 1970.
    package let at: Int64

    /// A value of these members.
    package init(outcome: String, reason: String?, at: Int64) {
        self.outcome = outcome
        self.reason = reason
        self.at = at
    }
}
