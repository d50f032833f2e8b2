internal import PushSealCore
internal import PushSealGatewayModel

/// An app's `receipts` member: its deliveries carry receipts, and phones and browsers report at
/// `<url>/v1/receipts/<delivery>` what they showed (gateway-v1.md, "Receipts"). Without it,
/// nothing a push carries changes.
///
/// ```json
/// "receipts": {"url": "https://push.example.com"}
/// ```
public struct ReceiptSettings: Sendable {
    /// Where phones and browsers reach the gateway (https, no path): the public name behind the
    /// TLS front.
    public let url: String

    /// Reads the `receipts` member `object` (at `path`).
    /// - Throws: ``GatewayError`` naming the member at fault.
    init(_ object: JSONObject, at path: JSONPath) throws(GatewayError) {
        try GatewayConfiguration.refuseUnknown(object, ["url"], at: path)
        url = try GatewayConfiguration.publicURL(object, "url", at: path)
    }

    /// The receipt URL of the delivery `id`.
    func url(ofDelivery id: String) -> String { "\(url)/v1/receipts/\(id)" }
}
