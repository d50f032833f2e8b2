/// Counts for `/metrics`.
package struct GatewayStatistics: Sendable, Equatable {
    /// Deliveries by status.
    package var deliveries: [DeliveryStatus: Int] = [:]
    /// Devices that can be pushed to.
    package var activeDevices: Int = 0
    /// Devices their push service said are gone.
    package var unregisteredDevices: Int = 0
    /// When the oldest queued delivery was accepted, if one is queued.
    package var oldestQueuedAcceptedAt: Int64?
    /// Webhook events waiting, by endpoint.
    package var webhookEventsQueued: [String: Int] = [:]
    /// The webhook endpoints disabled after failing for too long.
    package var webhookEndpointsDisabled: Set<String> = []

    /// A value of these members (none counted, by default).
    package init(
        deliveries: [DeliveryStatus: Int] = [:], activeDevices: Int = 0, unregisteredDevices: Int = 0,
        oldestQueuedAcceptedAt: Int64? = nil, webhookEventsQueued: [String: Int] = [:],
        webhookEndpointsDisabled: Set<String> = []
    ) {
        self.deliveries = deliveries
        self.activeDevices = activeDevices
        self.unregisteredDevices = unregisteredDevices
        self.oldestQueuedAcceptedAt = oldestQueuedAcceptedAt
        self.webhookEventsQueued = webhookEventsQueued
        self.webhookEndpointsDisabled = webhookEndpointsDisabled
    }

    /// How long the oldest queued delivery has waited at `now`, in whole seconds (0 when none).
    package func oldestQueuedSeconds(now: Int64) -> Int {
        Int(oldestQueuedAcceptedAt.map { max(0, now - $0) / 1_000 } ?? 0)
    }
}
