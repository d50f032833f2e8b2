/// An instance of the gateway, as its heartbeat records it (the status page lists them).
package struct InstanceRecord: Sendable, Equatable {
    /// Its id: the host name and a random suffix of its start.
    package let id: String
    /// The build it runs (``GatewayVersion``).
    package let version: String
    /// When it started, milliseconds since the epoch.
    package let startedAt: Int64
    /// When it last said it was alive.
    package let heartbeatAt: Int64

    /// A value of these members.
    package init(id: String, version: String, startedAt: Int64, heartbeatAt: Int64) {
        self.id = id
        self.version = version
        self.startedAt = startedAt
        self.heartbeatAt = heartbeatAt
    }
}
