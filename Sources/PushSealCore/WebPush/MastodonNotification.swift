/// A Mastodon notification's Web Push content read as an APNs-shaped payload, so that an iOS
/// client of Mastodon (or of a server that sends its shape: Pleroma, Akkoma, GoToSocial…) shows
/// it natively through the relay (webpush-v1.md, "The content"; docs/relay.md):
///
/// ```json
/// {"access_token": "…", "preferred_locale": "en", "notification_id": 4207,
///  "notification_type": "mention", "icon": "https://files.example/avatar.png",
///  "title": "Ada mentioned you", "body": "@you the parcel code is 7734-XQ"}
/// ```
///
/// - `title` and `body` become the alert (strings only), and the default sound plays, as the
///   browser's notification sounds.
/// - `notification_id` (a number or a string) stays, and its text becomes `event_id` (unless the
///   content has one), which the
///   extension records scoped by the relay endpoint, so that a repeat shows once and two servers'
///   equal ids stay apart.
/// - `notification_type`, `icon` and `preferred_locale` stay as they are, beside `aps`, for the
///   app (the extension hands them over under `userInfo["relayed"]` and fetches no `icon`).
/// - `access_token` is left out: it is the account's OAuth token, which has no place in a
///   notification iOS keeps, nor in what `pushseal decrypt` prints; the app knows the account by
///   the relay endpoint it registered for it.
/// - Any other member stays as it is.
///
/// Content is Mastodon's when `notification_type` is a string and `notification_id` is present.
public enum MastodonNotification {
    /// The member that holds the account's OAuth token, never kept.
    public static let tokenMember = "access_token"

    /// The APNs-shaped payload of `content`, or nil when it is not a Mastodon notification.
    public static func payload(_ content: JSONObject) -> JSONObject? {
        guard content["notification_type"]?.stringValue != nil, let id = content["notification_id"] else {
            return nil
        }
        var payload = JSONObject(
            content.members.filter { !$0.name.isExactly(tokenMember) && !$0.name.isExactly("aps") })
        if payload["event_id"] == nil {
            switch id {
            case .string(let text) where !text.isEmpty: payload["event_id"] = .string(text)
            case .number(let number): payload["event_id"] = .string(number.literal)
            default: break
            }
        }
        var alert = JSONObject()
        if let title = content["title"]?.stringValue { alert["title"] = .string(title) }
        if let body = content["body"]?.stringValue { alert["body"] = .string(body) }
        payload["aps"] = .object(JSONObject([("alert", .object(alert)), ("sound", .string("default"))]))
        return payload
    }
}
