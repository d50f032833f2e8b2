internal import PushSealCore

/// What a browser's service worker receives for a push, once it has decrypted the message
/// (gateway-v1.md, "Web Push", its content): the APNs payload mapped to what the Notifications API
/// shows, so that one `POST /v1/pushes` serves iPhones and browsers alike.
///
/// ```json
/// {"title": "Order 1042", "body": "Shipped today", "tag": "order-1042",
///  "data": {"event_id": "…", "order": 1042}}
/// ```
///
/// - `title` and `body`: `aps.alert.title` and `aps.alert.body`, or `aps.alert` itself when it is
///   a string; absent when the payload has none.
/// - `tag`: the push's collapse id (its option, or the contract's route), so that a newer
///   notification with the same tag replaces the older one, as `apns-collapse-id` does.
/// - `data`: every member of the payload but `aps`, as it is (the `event_id`, a `media`
///   descriptor, the backend's own members).
///
/// The rest of `aps` (`subtitle`, `badge`, `sound`, localized keys, `thread-id`, …) has no
/// counterpart a browser shows, and is left out. No placeholder is ever needed: the browser
/// decrypts before anything is shown.
enum ServiceWorkerContent {
    /// The content for `payload` (as prepared for sealing) and `collapseID`.
    static func json(payload: JSONObject, collapseID: String?) -> JSONObject {
        var content = JSONObject()
        switch payload["aps"]?.objectValue?["alert"] {
        case .string(let body)?:
            content["body"] = .string(body)
        case .object(let alert)?:
            if let title = alert["title"]?.stringValue { content["title"] = .string(title) }
            if let body = alert["body"]?.stringValue { content["body"] = .string(body) }
        default: break
        }
        if let collapseID { content["tag"] = .string(collapseID) }
        content["data"] = .object(JSONObject(payload.members.filter { !$0.name.isExactly("aps") }))
        return content
    }
}
