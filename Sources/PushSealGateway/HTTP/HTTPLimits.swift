internal import PushSealCore
internal import PushSealGatewayModel
internal import PushSealGatewayStorage

/// The configuration's `http` member: how many connections the server holds, how many one client
/// address may hold, how long a request's head and body may take in all, how many receipts one
/// client address may send, and which proxies say who the client is (gateway-v1.md, "Slow and
/// greedy clients"). Every time bound is a total, not an idle timeout: a client that sends one
/// byte every few seconds is closed when its time is up.
///
/// ```json
/// "http": {"connections": 1024, "connections_per_address": 256, "head_seconds": 10, "body_seconds": 30,
///          "receipts_per_second": 20, "receipts_burst": 200, "trusted_proxies": ["127.0.0.1", "::1"]}
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
    /// The receipts one client address may send per second (1 to 1,000,000; 20), a batch's
    /// receipts each counted, and at once after a rest (100 to 1,000,000; 200: a full batch and
    /// more). The client is the one the trusted proxies (`trusted_proxies`) name.
    public var receiptsPerSecond = 20
    /// See ``receiptsPerSecond``.
    public var receiptsBurst = 200
    /// The proxies whose `X-Forwarded-For` names the client (loopback by default).
    var trustedProxies = TrustedProxies.loopback

    /// The defaults.
    public init() {}

    /// Reads the `http` member `value` (at `path`); the defaults when it is absent.
    /// - Throws: ``GatewayError`` naming the member at fault.
    init(_ value: JSONValue?, at path: JSONPath) throws(GatewayError) {
        guard let value else { return }
        guard let object = value.objectValue else { throw GatewayConfiguration.invalid(path, "must be an object") }
        try GatewayConfiguration.refuseUnknown(
            object,
            [
                "connections", "connections_per_address", "head_seconds", "body_seconds", "receipts_per_second",
                "receipts_burst", "trusted_proxies",
            ], at: path)
        connections = try GatewayConfiguration.integer(object, "connections", in: 64...65_536, at: path) ?? connections
        connectionsPerAddress =
            try GatewayConfiguration.integer(object, "connections_per_address", in: 1...65_536, at: path)
            ?? connectionsPerAddress
        headSeconds = try GatewayConfiguration.integer(object, "head_seconds", in: 1...60, at: path) ?? headSeconds
        bodySeconds = try GatewayConfiguration.integer(object, "body_seconds", in: 1...300, at: path) ?? bodySeconds
        receiptsPerSecond =
            try GatewayConfiguration.integer(object, "receipts_per_second", in: 1...1_000_000, at: path)
            ?? receiptsPerSecond
        receiptsBurst =
            try GatewayConfiguration.integer(
                object, "receipts_burst", in: ReceiptEndpoint.maximumBatch...1_000_000, at: path) ?? receiptsBurst
        trustedProxies = try TrustedProxies(object["trusted_proxies"], at: path.member("trusted_proxies"))
    }
}
