internal import PushSealCore
internal import PushSealGatewayModel

/// An app's `fetch` member: its own pushes too large for APNs kept for the device to fetch
/// (gateway-v1.md, "Fetched content"). Without it, such a push is refused 422 (or its alert body
/// shortened, with `truncate`), as before.
///
/// ```json
/// "fetch": {"public_url": "https://push.example.com", "by_default": false}
/// ```
public struct FetchSettings: Sendable {
    /// Where phones reach the gateway (https, no path): content is fetched from
    /// `<public_url>/v1/fetch/<id>`.
    public let publicURL: String
    /// Whether a push that does not fit is fetched unless its `options.fetch` is false; without
    /// it (the default), only a push whose `options.fetch` is true is.
    public let byDefault: Bool

    /// Reads the `fetch` member `object` (at `path`).
    /// - Throws: ``GatewayError`` naming the member at fault.
    init(_ object: JSONObject, at path: JSONPath) throws(GatewayError) {
        try GatewayConfiguration.refuseUnknown(object, ["public_url", "by_default"], at: path)
        publicURL = try GatewayConfiguration.publicURL(object, at: path)
        byDefault = try GatewayConfiguration.flag(object, "by_default", at: path)
    }
}
