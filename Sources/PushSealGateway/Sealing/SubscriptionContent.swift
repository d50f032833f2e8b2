internal import PushSealCore
internal import PushSealURL

/// What a subscription's message holds once the browser has decrypted it (gateway-v1.md, "Web
/// Push", its content): the push's APNs payload and its `web` member mapped to what a browser
/// shows, so that one `POST /v1/pushes` serves iPhones and browsers alike.
///
/// The content is Declarative Web Push's JSON (WebKit; Safari 18.4 and later shows it with no
/// service worker), which a service worker reads the same way in every other browser:
///
/// ```json
/// {"web_push": 8030,
///  "notification": {"title": "Order 1042", "body": "Arrives Thursday\nShipped today",
///                   "navigate": "https://shop.example.com/orders/1042", "tag": "order-1042",
///                   "app_badge": 3, "silent": true, "data": {"event_id": "…", "order": 1042}}}
/// ```
///
/// With `webpush.content` `"service-worker-1.3"`, it is 1.3's shape instead, for service
/// workers that read `title` at the top: `{"title", "body", "tag", "data"}`.
struct SubscriptionContent: Sendable {
    /// The shape of the content.
    enum Form: String, Sendable, CaseIterable {
        /// `{"web_push": 8030, "notification": {…}}`, from 1.4.0.
        case declarative
        /// `{"title", "body", "tag", "data"}`, the content up to 1.3.
        case serviceWorker13 = "service-worker-1.3"
    }

    /// The shape of the content.
    let form: Form
    /// The URL a notification opens when the push names none; required by the declarative form.
    let navigate: String?

    /// The content of `payload` (as prepared for sealing), with the push's `collapseID` and `web`.
    func json(payload: JSONObject, collapseID: String?, web: WebPushOptions) -> JSONObject {
        let alert = Alert(payload["aps"]?.objectValue?["alert"])
        let data = JSONValue.object(JSONObject(payload.members.filter { !$0.name.isExactly("aps") }))
        guard form == .declarative, let navigate = web.navigate ?? navigate else {
            var content = JSONObject()
            if let title = alert.title { content["title"] = .string(title) }
            if let body = alert.body { content["body"] = .string(body) }
            if let collapseID { content["tag"] = .string(collapseID) }
            content["data"] = data
            return content
        }
        let aps = payload["aps"]?.objectValue ?? JSONObject()
        var notification = JSONObject()
        // The format requires a title; without one, as APNs shows the app's name, the site's.
        notification["title"] = .string(alert.title ?? Self.host(of: navigate))
        let lines = [alert.subtitle, alert.body].compactMap { $0 }
        if !lines.isEmpty { notification["body"] = .string(lines.joined(separator: "\n")) }
        notification["navigate"] = .string(navigate)
        if let collapseID { notification["tag"] = .string(collapseID) }
        if let lang = web.lang { notification["lang"] = .string(lang) }
        if let dir = web.dir { notification["dir"] = .string(dir) }
        if let icon = web.icon { notification["icon"] = .string(icon) }
        if let badge = aps["badge"]?.numberValue?.intValue, badge >= 0 {
            notification["app_badge"] = .number(JSONNumber(badge))
        }
        // A push without a sound is silent on an iPhone: so it is in a browser.
        notification["silent"] = .bool(aps["sound"] == nil)
        notification["data"] = data
        return JSONObject([("web_push", .number(JSONNumber(8030))), ("notification", .object(notification))])
    }

    /// The host of an https URL already checked (with its port when that is not 443), for a title.
    private static func host(of url: String) -> String {
        (try? HTTPSURL(url))?.authority ?? url
    }

    /// The texts of `aps.alert`: a string is the body; an object gives its title, subtitle and body.
    private struct Alert {
        var title: String?
        var subtitle: String?
        var body: String?

        init(_ value: JSONValue?) {
            switch value {
            case .string(let body)?:
                self.body = body
            case .object(let alert)?:
                title = alert["title"]?.stringValue
                subtitle = alert["subtitle"]?.stringValue
                body = alert["body"]?.stringValue
            default: break
            }
        }
    }
}
