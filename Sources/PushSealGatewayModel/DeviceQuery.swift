/// Which devices a store lists, in a stable order (unregistered ones by the time they were
/// marked, then by id; the others by id), and where the page starts.
package struct DeviceQuery: Sendable, Equatable {
    /// The state asked for; nil for every device.
    package let state: DeviceFilter?
    /// For `unregistered`: only devices marked at or after this time (milliseconds).
    package let since: Int64?
    /// The page starts after the device of this id...
    package let afterID: String?
    /// ...marked unregistered at this time, in a listing of unregistered devices.
    package let afterUnregisteredAt: Int64?
    /// Only the devices of this user, when given.
    package let user: String?

    /// A value of these members.
    package init(state: DeviceFilter?, since: Int64?, afterID: String?, afterUnregisteredAt: Int64?, user: String?) {
        self.state = state
        self.since = since
        self.afterID = afterID
        self.afterUnregisteredAt = afterUnregisteredAt
        self.user = user
    }
}
