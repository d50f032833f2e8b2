/// A stored push.
package struct PushRecord: Sendable, Equatable {
    /// The push's id.
    package let id: String
    /// When it was accepted, milliseconds since the epoch.
    package let acceptedAt: Int64
    /// Its deliveries, one per device, in order (a page of them when a limit was asked).
    package let deliveries: [DeliveryState]
    /// How many of all its deliveries stand in each status.
    package var counts: [DeliveryStatus: Int] = [:]

    /// A value of these members.
    package init(id: String, acceptedAt: Int64, deliveries: [DeliveryState], counts: [DeliveryStatus: Int] = [:]) {
        self.id = id
        self.acceptedAt = acceptedAt
        self.deliveries = deliveries
        self.counts = counts
    }
}
