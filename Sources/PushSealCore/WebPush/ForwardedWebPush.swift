internal import PushSealPrimitives

/// A Web Push message forwarded to an iPhone in an APNs payload (webpush-v1.md, "Forwarded to an
/// iPhone"): the `aes128gcm` body exactly as its sender posted it, in base64url without padding
/// under ``member`` (a legacy `aesgcm` message's frame under ``aesgcmMember``), beside a placeholder alert and `mutable-content: 1` so that the Notification
/// Service Extension runs, and the relay endpoint it was posted to (``endpointMember``, the first
/// 8 characters of its id) so that each sender's notifications stay apart on the phone. The
/// relay that made it holds no key that opens it.
///
/// ```json
/// {"aps": {"alert": {"title": "New notification", "body": "Open the app to view it."},
///          "mutable-content": 1},
///  "webpush": "<base64url of the aes128gcm message>", "webpush_endpoint": "Xk3v9QaZ"}
/// ```
public enum ForwardedWebPush {
    /// The member that carries the message.
    public static let member = "webpush"
    /// The member that carries a legacy `aesgcm` message's frame (``AESGCMMessage``; from 1.4.0).
    public static let aesgcmMember = "webpush_aesgcm"
    /// The member that names the relay endpoint the message was posted to (from 1.4.0).
    public static let endpointMember = "webpush_endpoint"
    /// The characters of an endpoint's id that name it: enough to tell one device's endpoints
    /// apart, and what the relay's logs show, never enough to post to it.
    public static let endpointPrefixLength = 8
    /// APNs' limit on an alert push's payload.
    public static let apnsLimit = 4096

    /// The APNs payload that forwards `message` of `coding` (for `aesgcm`, its frame) posted to
    /// the endpoint `endpoint` (its id's first ``endpointPrefixLength`` characters) with
    /// `placeholder` (each member only when given, and `aps.alert` only when there is text).
    /// Compact JSON, as APNs receives it.
    public static func payload(
        message: [UInt8], coding: WebPushCoding = .aes128gcm, endpoint: String?,
        placeholder: (title: String?, body: String?)
    ) -> JSONObject {
        var alert = JSONObject()
        if let title = placeholder.title { alert["title"] = .string(title) }
        if let body = placeholder.body { alert["body"] = .string(body) }
        var aps = JSONObject()
        if !alert.members.isEmpty { aps["alert"] = .object(alert) }
        aps["mutable-content"] = .number(JSONNumber(1))
        var payload = JSONObject([("aps", .object(aps)), (coding.payloadMember, .string(Base64URL.encode(message)))])
        if let endpoint { payload[endpointMember] = .string(endpoint) }
        return payload
    }

    /// The relay endpoint a forwarded payload names (``endpointMember``): 1 to 64 base64url
    /// characters, else nil (a payload from a relay before 1.4.0, or one that names none).
    public static func endpoint(in payload: JSONObject) -> String? {
        guard let text = payload[endpointMember]?.stringValue, (1...64).contains(text.utf8.count),
            text.utf8.allSatisfy(Base64URL.isAlphabetCharacter)
        else { return nil }
        return text
    }

    /// The longest message of `coding` (for `aesgcm`, its frame) that fits APNs' 4,096 bytes once
    /// forwarded with `placeholder` and an endpoint's prefix: the payload's size without the
    /// message, then base64url's 4 characters for every 3 bytes.
    public static func maximumMessageByteCount(
        placeholder: (title: String?, body: String?), coding: WebPushCoding = .aes128gcm
    ) -> Int {
        let endpoint = String(repeating: "A", count: endpointPrefixLength)
        let empty = payload(message: [], coding: coding, endpoint: endpoint, placeholder: placeholder)
        let fixed = JSONWriter.bytes(.object(empty)).count
        let characters = max(0, apnsLimit - fixed)
        // n bytes take ceil(4n / 3) characters unpadded: the largest n whose encoding fits.
        var count = characters * 3 / 4
        while count > 0, (4 * count + 2) / 3 > characters { count -= 1 }
        return min(count, coding.maximumByteCount)
    }

    /// The message `payload` forwards and its coding, or nil when it has neither a ``member`` nor
    /// an ``aesgcmMember`` string (it is no forwarded Web Push message).
    /// - Throws: `PushSealError.Code.malformedEnvelope` when the member is not canonical base64url
    ///   of 1 to 4,096 bytes (4,182 for a frame), or when the payload has both members.
    public static func message(in payload: JSONObject) throws(PushSealError)
        -> (bytes: [UInt8], coding: WebPushCoding)?
    {
        let present = WebPushCoding.allCases.filter { payload[$0.payloadMember] != nil }
        guard let coding = present.first else { return nil }
        guard present.count == 1 else {
            throw PushSealError(
                .malformedEnvelope, "$.\(member) and $.\(aesgcmMember) are both present: a push forwards one message")
        }
        guard let text = payload[coding.payloadMember]?.stringValue, let bytes = Base64URL.decode(text),
            (1...coding.maximumByteCount).contains(bytes.count)
        else {
            throw PushSealError(
                .malformedEnvelope,
                "$.\(coding.payloadMember) must be canonical base64url of a 1 to \(coding.maximumByteCount)-byte "
                    + "\(coding.rawValue) message")
        }
        return (bytes, coding)
    }
}
