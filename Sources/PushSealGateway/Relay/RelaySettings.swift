internal import PushSealCore
internal import PushSealGatewayModel
internal import PushSealGatewayStorage

/// The configuration's `relay` member: the gateway as a Web Push service for its APNs devices
/// (gateway-v1.md, "Web Push in"). Without it, no device gets a Web Push endpoint.
///
/// ```json
/// "relay": {"public_url": "https://push.example.com",
///           "placeholder": {"title": "New notification", "body": "Open the app to view it."},
///           "messages_per_second": 2, "messages_burst": 20}
/// ```
public struct RelaySettings: Sendable {
    /// The URL senders reach the gateway at (https, no path, query or fragment): endpoints are
    /// `<public_url>/v1/webpush/<id>`, and VAPID tokens must name its origin as `aud`.
    public let publicURL: String
    /// The alert shown when the extension cannot open a forwarded message.
    public let placeholder: (title: String, body: String)
    /// Each endpoint's rate of messages, per second (1 to 1,000; 2), and its burst (1 to 10,000; 20).
    public let messagesPerSecond: Int
    /// See ``messagesPerSecond``.
    public let messagesBurst: Int
    /// The longest message of each coding (for `aesgcm`, its frame) forwarded in the push itself:
    /// what fits APNs' 4,096 bytes once forwarded with the placeholder
    /// (`ForwardedWebPush.maximumMessageByteCount(placeholder:coding:)`), worked out once. A longer
    /// one, up to RFC 8030's 4,096 bytes of body, is kept for the device to fetch (gateway-v1.md,
    /// "Fetched content").
    let maximumForwardedByteCount: [WebPushCoding: Int]

    /// Reads the `relay` member `object` (at `path`).
    /// - Throws: ``GatewayError`` naming the member at fault.
    init(_ object: JSONObject, at path: JSONPath) throws(GatewayError) {
        try GatewayConfiguration.refuseUnknown(
            object, ["public_url", "placeholder", "messages_per_second", "messages_burst"], at: path)
        publicURL = try GatewayConfiguration.publicURL(object, at: path)
        placeholder = try Self.placeholder(object["placeholder"], at: path.member("placeholder"))
        messagesPerSecond =
            try GatewayConfiguration.integer(object, "messages_per_second", in: 1...1_000, at: path) ?? 2
        messagesBurst = try GatewayConfiguration.integer(object, "messages_burst", in: 1...10_000, at: path) ?? 20
        let placeholder = placeholder
        maximumForwardedByteCount = Dictionary(
            uniqueKeysWithValues: WebPushCoding.allCases.map { coding in
                let limit = ForwardedWebPush.maximumMessageByteCount(
                    placeholder: (title: placeholder.title, body: placeholder.body), coding: coding)
                return (coding, limit)
            })
    }

    /// The default placeholder, the envelope's own (envelope-v1.md, "Outer payload").
    static let defaultPlaceholder = (title: "New notification", body: "Open the app to view it.")

    private static func placeholder(_ value: JSONValue?, at path: JSONPath) throws(GatewayError)
        -> (title: String, body: String)
    {
        guard let value else { return defaultPlaceholder }
        guard let object = value.objectValue else { throw GatewayConfiguration.invalid(path, "must be an object") }
        try GatewayConfiguration.refuseUnknown(object, ["title", "body"], at: path)
        return (
            try GatewayConfiguration.text(object, "title", maximum: 256, fallback: defaultPlaceholder.title, at: path),
            try GatewayConfiguration.text(object, "body", maximum: 256, fallback: defaultPlaceholder.body, at: path)
        )
    }

}
