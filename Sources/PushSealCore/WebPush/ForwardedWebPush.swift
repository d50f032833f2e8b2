internal import PushSealPrimitives

/// A Web Push message forwarded to an iPhone in an APNs payload (webpush-v1.md, "Forwarded to an
/// iPhone"): the `aes128gcm` body exactly as its sender posted it, in base64url without padding
/// under ``member``, beside a placeholder alert and `mutable-content: 1` so that the Notification
/// Service Extension runs. The relay that made it holds no key that opens it.
///
/// ```json
/// {"aps": {"alert": {"title": "New notification", "body": "Open the app to view it."},
///          "mutable-content": 1},
///  "webpush": "<base64url of the aes128gcm message>"}
/// ```
public enum ForwardedWebPush {
    /// The member that carries the message.
    public static let member = "webpush"
    /// APNs' limit on an alert push's payload.
    public static let apnsLimit = 4096

    /// The APNs payload that forwards `message` with `placeholder` (each member only when given,
    /// and `aps.alert` only when there is text). Compact JSON, as APNs receives it.
    public static func payload(message: [UInt8], placeholder: (title: String?, body: String?)) -> JSONObject {
        var alert = JSONObject()
        if let title = placeholder.title { alert["title"] = .string(title) }
        if let body = placeholder.body { alert["body"] = .string(body) }
        var aps = JSONObject()
        if !alert.members.isEmpty { aps["alert"] = .object(alert) }
        aps["mutable-content"] = .number(JSONNumber(1))
        return JSONObject([("aps", .object(aps)), (member, .string(Base64URL.encode(message)))])
    }

    /// The longest message that fits APNs' 4,096 bytes once forwarded with `placeholder`: the
    /// payload's size without the message, then base64url's 4 characters for every 3 bytes.
    public static func maximumMessageByteCount(placeholder: (title: String?, body: String?)) -> Int {
        let fixed = JSONWriter.bytes(.object(payload(message: [], placeholder: placeholder))).count
        let characters = max(0, apnsLimit - fixed)
        // n bytes take ceil(4n / 3) characters unpadded: the largest n whose encoding fits.
        var count = characters * 3 / 4
        while count > 0, (4 * count + 2) / 3 > characters { count -= 1 }
        return min(count, WebPushMessage.maximumByteCount)
    }

    /// The message `payload` forwards, or nil when it has no ``member`` string (it is no forwarded
    /// Web Push message).
    /// - Throws: `PushSealError.Code.malformedEnvelope` when the member is not canonical base64url
    ///   of 1 to 4,096 bytes.
    public static func message(in payload: JSONObject) throws(PushSealError) -> [UInt8]? {
        guard let text = payload[member]?.stringValue else { return nil }
        guard let bytes = Base64URL.decode(text), (1...WebPushMessage.maximumByteCount).contains(bytes.count) else {
            throw PushSealError(
                .malformedEnvelope, "$.\(member) must be canonical base64url of a 1 to 4096-byte aes128gcm message")
        }
        return bytes
    }
}
