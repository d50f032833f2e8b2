internal import PushSealCore
internal import PushSealGatewayModel
internal import PushSealGatewayStorage

/// The configuration's `http` member: how many connections the server holds, how many one client
/// address may hold, and how long a request's head and body may take in all (gateway-v1.md,
/// "Slow and greedy clients"). Every bound is a total, not an idle timeout: a client that sends
/// one byte every few seconds is closed when its time is up.
///
/// ```json
/// "http": {"connections": 1024, "connections_per_address": 256, "head_seconds": 10, "body_seconds": 30}
/// ```
public struct HTTPLimits: Sendable {
    /// The most connections open at once (64 to 65,536; 1,024), lowered at start so that the
    /// process keeps descriptors for its database and APNs connections.
    public var connections = 1_024
    /// The most connections one client address may hold (1 to 65,536; 256). Behind a proxy that
    /// connects from one address, raise it to ``connections``.
    public var connectionsPerAddress = 256
    /// How long a request head may take, from the connection's start or the previous answer
    /// (1 to 60 s; 10).
    public var headSeconds = 10
    /// How long a request body may take once its head is in (1 to 300 s; 30).
    public var bodySeconds = 30

    /// The defaults.
    public init() {}

    /// Reads the `http` member `value` (at `path`); the defaults when it is absent.
    /// - Throws: ``GatewayError`` naming the member at fault.
    init(_ value: JSONValue?, at path: JSONPath) throws(GatewayError) {
        guard let value else { return }
        guard let object = value.objectValue else { throw GatewayConfiguration.invalid(path, "must be an object") }
        try GatewayConfiguration.refuseUnknown(
            object, ["connections", "connections_per_address", "head_seconds", "body_seconds"], at: path)
        connections = try GatewayConfiguration.integer(object, "connections", in: 64...65_536, at: path) ?? connections
        connectionsPerAddress =
            try GatewayConfiguration.integer(object, "connections_per_address", in: 1...65_536, at: path)
            ?? connectionsPerAddress
        headSeconds = try GatewayConfiguration.integer(object, "head_seconds", in: 1...60, at: path) ?? headSeconds
        bodySeconds = try GatewayConfiguration.integer(object, "body_seconds", in: 1...300, at: path) ?? bodySeconds
    }
}
