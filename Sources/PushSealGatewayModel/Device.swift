/// A registered device: the backend's ids, and where and how to push to it.
package struct Device: Sendable, Equatable {
    /// The app it is registered in: its id, its user and its relay endpoints are that app's.
    package let app: AppID
    /// The backend's id for the device (the path of `/v1/devices/{id}`), unique within its app.
    package let id: String
    /// The backend's opaque id of the device's user.
    package let user: String
    /// APNs or Web Push, with the address and the key.
    package let channel: DeviceChannel
    /// When the device was last registered, milliseconds since the epoch.
    package let registeredAt: Int64
    /// When its push service said the address is no longer valid, if it did since the last
    /// registration.
    package let unregisteredAt: Int64?

    /// A value of these members.
    package init(
        app: AppID, id: String, user: String, channel: DeviceChannel, registeredAt: Int64, unregisteredAt: Int64?
    ) {
        self.app = app
        self.id = id
        self.user = user
        self.channel = channel
        self.registeredAt = registeredAt
        self.unregisteredAt = unregisteredAt
    }
}
