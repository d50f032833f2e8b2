/// Declarative Web Push (the Push API's "declarative push message": WebKit shows it with no
/// service worker from Safari 18.4, Firefox parses it) read as an APNs-shaped payload, so that a
/// sender that speaks it reaches an iPhone as natively as a browser (webpush-v1.md, "The
/// content"):
///
/// ```json
/// {"web_push": 8030,
///  "notification": {"title": "Ada mentioned you", "body": "The parcel code is 7734-XQ",
///                   "navigate": "https://social.example/notifications/4207", "tag": "mentions",
///                   "lang": "en", "dir": "ltr", "silent": false, "app_badge": 3,
///                   "data": {"event_id": "4207"}},
///  "mutable": false}
/// ```
///
/// - `title` and `body` become the alert; `tag` the thread (`thread-id`); `app_badge` the badge:
///   an integer from 0 to 2^63 − 1, or its decimal digits as a string (WebKit's examples), read
///   at the top level (the Push API's place) or in `notification` (WebKit's first one), the top
///   level first.
/// - `silent: true` makes no sound; otherwise the default sound plays, as a web notification's
///   does unless it is silent.
/// - `navigate` (the page a tap opens), `lang` and `dir` are kept at the top level of the
///   payload, which the extension hands the app under `userInfo["relayed"]`; `data`'s members
///   join them when it is an object (its `event_id` so records a repeat once), else it is kept as
///   `data`.
/// - `mutable` (which asks a browser to run the service worker first) is accepted at either place
///   and changes nothing: the extension is the app's own code already.
///
/// A message is declarative when its `web_push` is the number 8030 and its `notification` an
/// object; text members of another type are left out rather than refusing the message.
public enum DeclarativeWebPush {
    /// The value of `web_push` that marks the format (RFC 8030's number).
    public static let marker = 8030

    /// The APNs-shaped payload of `message`, or nil when it is not a declarative message.
    public static func payload(_ message: JSONObject) -> JSONObject? {
        guard message["web_push"]?.numberValue?.doubleValue == Double(marker),
            let notification = message["notification"]?.objectValue
        else { return nil }
        var payload = JSONObject()
        switch notification["data"] {
        case .object(let data)?:
            for member in data.members where !member.name.isExactly("aps") { payload[member.name] = member.value }
        case let data?: payload["data"] = data
        case nil: break
        }
        for name in ["navigate", "lang", "dir"] {
            if let text = notification[name]?.stringValue { payload[name] = .string(text) }
        }
        var alert = JSONObject()
        if let title = notification["title"]?.stringValue { alert["title"] = .string(title) }
        if let body = notification["body"]?.stringValue { alert["body"] = .string(body) }
        var aps = JSONObject([("alert", .object(alert))])
        if let badge = badge(message["app_badge"]) ?? badge(notification["app_badge"]) {
            aps["badge"] = .number(JSONNumber(badge))
        }
        if notification["silent"] != .bool(true) { aps["sound"] = .string("default") }
        if let tag = notification["tag"]?.stringValue, !tag.isEmpty { aps["thread-id"] = .string(tag) }
        payload["aps"] = .object(aps)
        return payload
    }

    /// A badge of `value`: a non-negative integer, or its decimal digits as a string.
    private static func badge(_ value: JSONValue?) -> Int? {
        let count: Int? =
            switch value {
            case .number(let number)?: number.intValue
            case .string(let digits)? where !digits.isEmpty && digits.utf8.allSatisfy({ (48...57).contains($0) }):
                Int(digits)
            default: nil
            }
        return count.flatMap { $0 >= 0 ? $0 : nil }
    }
}
