internal import PushSealCore
package import PushSealGatewayModel

/// One app the gateway serves: its APNs keys and topics, sender keys, payload contract, Web Push
/// key, relay, webhooks, limits and test push (gateway-v1.md, "Configuration"). A configuration
/// without `apps` has these members at its top level, and serves them as the app `default`; with
/// `apps`, each member of `apps` is one, named by its member name.
public struct AppConfiguration: Sendable {
    /// The app's name: what its tokens and rows carry.
    package let id: AppID
    /// The sender's private JWK files, at most one per suite.
    public let senderKeyFiles: [String]
    /// The `.p8` keys, topics and hosts.
    public let apns: APNsSettings
    /// A payload contract every push must satisfy (contract-v1.md), if any.
    public let contractFile: String?
    /// The most deliveries one push may make once its audience is resolved (1 to 100,000; 5,000
    /// by default); a push that would make more is refused with 422 `too-many-deliveries`.
    public let maximumDeliveriesPerPush: Int
    /// How Web Push subscriptions are reached; nil when the app has APNs devices only.
    public let webPush: WebPushSettings?
    /// The title and body of `POST /v1/devices/{id}/test`'s notification.
    public let testNotification: (title: String, body: String)
    /// The gateway as a Web Push service for the app's APNs devices (gateway-v1.md, "Web Push
    /// in"); nil when it serves no endpoint.
    public let relay: RelaySettings?
    /// The app's own pushes too large for APNs kept for the device to fetch (gateway-v1.md,
    /// "Fetched content"); nil when such a push is refused.
    public let fetch: FetchSettings?
    /// Where the app's devices report what they showed (gateway-v1.md, "Receipts"); nil when its
    /// deliveries carry no receipts.
    public let receipts: ReceiptSettings?
    /// Each of the app's tokens' rates (gateway-v1.md, "Limits"); none by default.
    public let rateLimits: RateLimitSettings
    /// The endpoints that receive the app's events (gateway-v1.md, "Webhooks"); none by default.
    public let webhooks: [WebhookSettings]
    /// How long the records of the app's ended deliveries, pushes and webhook events are kept, in
    /// hours: its own `retention_hours`, else the gateway's.
    public let retentionHours: Int

    /// The members an app has, at the top level of a one-app configuration or in each of `apps`.
    static let members = [
        "sender_key_files", "apns", "contract_file", "max_deliveries_per_push", "webpush", "test_push", "relay",
        "fetch", "limits", "webhooks", "receipts",
    ]

    /// The members an app of `apps` may have that are also the gateway's, where they are every
    /// app's default (and, for `retention_hours`, the retention of rows no app's says).
    static let inheritedMembers = ["retention_hours"]

    /// The test notification without `test_push` in the configuration.
    public static let defaultTestNotification = (
        title: "PushSeal test", body: "This device receives end-to-end encrypted pushes."
    )

    /// Reads the app `id` from `object` (at `path`), where only its members are looked at;
    /// relative files go through `resolve`; `retentionHours` where the app has none.
    /// - Throws: ``GatewayError`` naming the member at fault.
    init(
        _ id: AppID, _ object: JSONObject, at path: JSONPath, retentionHours gatewayRetention: Int,
        resolve: (String) -> String
    ) throws(GatewayError) {
        self.id = id
        retentionHours =
            try GatewayConfiguration.integer(
                object, "retention_hours", in: GatewayConfiguration.retentionRange, at: path)
            ?? gatewayRetention
        senderKeyFiles = try GatewayConfiguration.strings(object, "sender_key_files", of: "file names", at: path)
            .map(resolve)
        guard let apnsObject = object["apns"]?.objectValue else {
            throw GatewayConfiguration.invalid(path.member("apns"), "must be an object")
        }
        apns = try APNsSettings(apnsObject, at: path.member("apns"), resolve: resolve)
        contractFile =
            object["contract_file"] == nil
            ? nil : resolve(try GatewayConfiguration.string(object, "contract_file", at: path))
        maximumDeliveriesPerPush =
            try GatewayConfiguration.integer(object, "max_deliveries_per_push", in: 1...100_000, at: path) ?? 5_000
        if let webPushObject = try GatewayConfiguration.optionalObject(object, "webpush", at: path) {
            webPush = try WebPushSettings(webPushObject, at: path.member("webpush"), resolve: resolve)
        } else {
            webPush = nil
        }
        testNotification = try Self.testNotification(object["test_push"], at: path.member("test_push"))
        if let relayObject = try GatewayConfiguration.optionalObject(object, "relay", at: path) {
            relay = try RelaySettings(relayObject, at: path.member("relay"))
        } else {
            relay = nil
        }
        if let fetchObject = try GatewayConfiguration.optionalObject(object, "fetch", at: path) {
            fetch = try FetchSettings(fetchObject, at: path.member("fetch"))
        } else {
            fetch = nil
        }
        if let receiptsObject = try GatewayConfiguration.optionalObject(object, "receipts", at: path) {
            receipts = try ReceiptSettings(receiptsObject, at: path.member("receipts"))
        } else {
            receipts = nil
        }
        rateLimits = try RateLimitSettings(object["limits"], at: path.member("limits"))
        webhooks = try WebhookSettings.list(object["webhooks"], at: path.member("webhooks"), resolve: resolve)
    }

    /// The `test_push` member `value` (at `path`): `{"title", "body"}`, each optional (1 to 256 and
    /// 1 to 1,024 characters without control characters); the defaults where absent.
    private static func testNotification(_ value: JSONValue?, at path: JSONPath) throws(GatewayError) -> (
        title: String, body: String
    ) {
        guard let value else { return defaultTestNotification }
        guard let object = value.objectValue else { throw GatewayConfiguration.invalid(path, "must be an object") }
        try GatewayConfiguration.refuseUnknown(object, ["title", "body"], at: path)
        return (
            try GatewayConfiguration.text(
                object, "title", maximum: 256, fallback: defaultTestNotification.title, at: path),
            try GatewayConfiguration.text(
                object, "body", maximum: 1_024, fallback: defaultTestNotification.body, at: path)
        )
    }
}
