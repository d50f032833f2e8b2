/// Counts for `/metrics` and the status page: the gateway's (or one app's) totals, and each app's
/// share of them.
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
    /// Each app's queue and devices, for every app that has a queued delivery or a device.
    package var apps: [AppID: AppStatistics] = [:]

    /// A value of these members (none counted, by default).
    package init(
        deliveries: [DeliveryStatus: Int] = [:], activeDevices: Int = 0, unregisteredDevices: Int = 0,
        oldestQueuedAcceptedAt: Int64? = nil, webhookEventsQueued: [String: Int] = [:],
        webhookEndpointsDisabled: Set<String> = [], apps: [AppID: AppStatistics] = [:]
    ) {
        self.deliveries = deliveries
        self.activeDevices = activeDevices
        self.unregisteredDevices = unregisteredDevices
        self.oldestQueuedAcceptedAt = oldestQueuedAcceptedAt
        self.webhookEventsQueued = webhookEventsQueued
        self.webhookEndpointsDisabled = webhookEndpointsDisabled
        self.apps = apps
    }

    /// The queue and devices of every app counted, in the shape of one app's share.
    package var totals: AppStatistics {
        AppStatistics(
            queued: deliveries[.queued] ?? 0, oldestQueuedAcceptedAt: oldestQueuedAcceptedAt,
            activeDevices: activeDevices, unregisteredDevices: unregisteredDevices)
    }

    /// How long the oldest queued delivery has waited at `now`, in whole seconds (0 when none).
    package func oldestQueuedSeconds(now: Int64) -> Int { totals.oldestQueuedSeconds(now: now) }
}
