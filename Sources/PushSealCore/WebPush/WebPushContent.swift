/// What a forwarded Web Push message's content becomes in a notification
/// (webpush-v1.md, "Forwarded to an iPhone"), as the extension shows it: the standard mapping
/// every sender gets unless the app gives its own. The extension shows the payload's `aps`, and
/// hands the app every other member under `userInfo["relayed"]`, apart from what the app's
/// backend sets (`RelayedContent`).
///
/// - A JSON object with an `aps` object is an APNs payload already (what PushSeal's own senders
///   put in): it is shown as it is.
/// - A Declarative Web Push message (`{"web_push": 8030, "notification": {…}}`) is read as
///   ``DeclarativeWebPush`` says: its title, body, badge, sound and thread, with `navigate`,
///   `lang`, `dir` and its `data` beside `aps`.
/// - A Mastodon notification (`{"notification_type", "notification_id", "title", "body",
///   "access_token", …}`) is read as ``MastodonNotification`` says: its title and body, with the
///   default sound, every member but `access_token` beside `aps`, and `notification_id` as its
///   `event_id`.
/// - Any other JSON object (most senders'): its string `title` and `body` become the alert, every
///   member stays beside `aps`, and its `notification_id` becomes `event_id` when it has none, so
///   that a repeat is recorded once.
/// - Text that is not JSON becomes the body; bytes that are not UTF-8 map to nothing
///   (`malformed-content`).
public enum WebPushContent {
    /// A mapping from a message's content to an APNs-shaped payload, or nil when it cannot show it.
    public typealias Mapping = @Sendable ([UInt8]) -> JSONObject?

    /// The mapping described above.
    public static let standard: Mapping = { content in
        guard let text = String(validating: content, as: UTF8.self) else { return nil }
        guard let object = (try? JSONParser.parse(content))?.objectValue else {
            return JSONObject([
                ("aps", .object(JSONObject([("alert", .object(JSONObject([("body", .string(text))])))])))
            ])
        }
        if object["aps"]?.objectValue != nil { return object }
        if let declarative = DeclarativeWebPush.payload(object) { return declarative }
        if let mastodon = MastodonNotification.payload(object) { return mastodon }
        var payload = object
        var alert = JSONObject()
        if let title = object["title"]?.stringValue { alert["title"] = .string(title) }
        if let body = object["body"]?.stringValue { alert["body"] = .string(body) }
        payload["aps"] = .object(JSONObject([("alert", .object(alert))]))
        if payload["event_id"] == nil {
            switch object["notification_id"] {
            case .string(let id)?: payload["event_id"] = .string(id)
            case .number(let id)?: payload["event_id"] = .string(id.literal)
            default: break
            }
        }
        return payload
    }
}
