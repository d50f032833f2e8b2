/// One app's share of ``GatewayStatistics``: its queue and its devices, for the `app` label of
/// the queue gauges and the status page's apps.
package struct AppStatistics: Sendable, Equatable {
    /// Deliveries queued, due or waiting for a retry.
    package var queued = 0
    /// When the oldest of them was accepted, if one is queued.
    package var oldestQueuedAcceptedAt: Int64?
    /// Devices that can be pushed to.
    package var activeDevices = 0
    /// Devices their push service said are gone.
    package var unregisteredDevices = 0

    /// A value of these members (none counted, by default).
    package init(
        queued: Int = 0, oldestQueuedAcceptedAt: Int64? = nil, activeDevices: Int = 0, unregisteredDevices: Int = 0
    ) {
        self.queued = queued
        self.oldestQueuedAcceptedAt = oldestQueuedAcceptedAt
        self.activeDevices = activeDevices
        self.unregisteredDevices = unregisteredDevices
    }

    /// How long the oldest queued delivery has waited at `now`, in whole seconds (0 when none, or
    /// when it was accepted after `now` by another instance's clock).
    package func oldestQueuedSeconds(now: Int64) -> Int {
        Int(oldestQueuedAcceptedAt.map { max(0, now - $0) / 1_000 } ?? 0)
    }
}
