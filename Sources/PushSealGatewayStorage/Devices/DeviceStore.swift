package import PushSealGatewayModel

/// The devices the backends register: each by id, with its user, its channel (an APNs token or a
/// Web Push subscription) and whether its address was found gone.
package protocol DeviceStore: Sendable {
    /// Registers or updates a device (its channel replaced whole); true when it was new.
    /// Registering again clears an `unregistered` mark and sets the registration time.
    func putDevice(_ device: Device) throws -> Bool
    /// The device `id` of `app`.
    func device(id: String, in app: AppID) throws -> Device?
    /// Removes the device `id` of `app`; false when there was none. Its queued deliveries are not
    /// sent: they end `unregistered` (reason `DeviceDeleted`) at `time`, with the events `routing`
    /// asks for.
    func deleteDevice(id: String, in app: AppID, at time: Int64, routing: WebhookRouting) throws -> Bool
    /// The devices of `user` in `app`, by id.
    func devices(user: String, in app: AppID) throws -> [Device]
    /// Up to `limit` devices of `app` that `query` selects (its state, time and cursor), in its
    /// order.
    func devices(_ query: DeviceQuery, in app: AppID, limit: Int) throws -> [Device]
}

extension DeviceStore where Self: SQLExecutor {
    package func device(id: String, in app: AppID) throws -> Device? {
        try read(
            "\(Device.selectColumns) WHERE id = \(placeholder(1)) AND app = \(placeholder(2))",
            [.text(id), .text(app.name)]
        ).first.flatMap(Device.init(row:))
    }

    package func deleteDevice(id: String, in app: AppID, at time: Int64, routing: WebhookRouting) throws -> Bool {
        try transaction { sql in try OutboxFinish.deleteDevice(id: id, in: app, at: time, routing: routing, sql) }
    }

    package func devices(user: String, in app: AppID) throws -> [Device] {
        try read(
            "\(Device.selectColumns) WHERE user_id = \(placeholder(1)) AND app = \(placeholder(2)) ORDER BY id",
            [.text(user), .text(app.name)]
        ).compactMap(Device.init(row:))
    }

    package func devices(_ query: DeviceQuery, in app: AppID, limit: Int) throws -> [Device] {
        let (statement, values) = query.statement(in: app, limit: limit, placeholder: dialect.placeholder)
        return try read(statement, values).compactMap(Device.init(row:))
    }
}
