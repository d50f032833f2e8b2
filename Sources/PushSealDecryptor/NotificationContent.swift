public import PushSealCore

/// The content of a notification, mirroring `UNMutableNotificationContent`: what the extension
/// hands back to iOS. A member the payload lacks is nil, and absent from ``json``.
public struct NotificationContent: Sendable, Hashable {
    /// `aps.alert.title`.
    public var title: String?
    /// `aps.alert.subtitle`.
    public var subtitle: String?
    /// `aps.alert.body`, or the alert itself when it is a string.
    public var body: String?
    /// `aps.alert.title-loc-key`.
    public var titleLocKey: String?
    /// `aps.alert.title-loc-args`.
    public var titleLocArgs: [String]?
    /// `aps.alert.subtitle-loc-key`.
    public var subtitleLocKey: String?
    /// `aps.alert.subtitle-loc-args`.
    public var subtitleLocArgs: [String]?
    /// `aps.alert.loc-key`.
    public var locKey: String?
    /// `aps.alert.loc-args`.
    public var locArgs: [String]?
    /// `aps.alert.launch-image`.
    public var launchImageName: String?
    /// `aps.badge`.
    public var badge: Int?
    /// `aps.sound`: a name, or the critical-sound object.
    public var sound: JSONValue?
    /// `aps.thread-id`.
    public var threadIdentifier: String?
    /// `aps.category`.
    public var categoryIdentifier: String?
    /// `aps.interruption-level`.
    public var interruptionLevel: String?
    /// `aps.relevance-score`, as written.
    public var relevanceScore: JSONNumber?
    /// `aps.target-content-id`.
    public var targetContentIdentifier: String?
    /// `aps.filter-criteria`.
    public var filterCriteria: String?
    /// The whole payload the content was read from.
    public var userInfo: JSONObject

    /// Reads the content of `payload`, as iOS would. Members of the wrong JSON type are treated
    /// as absent: the content never fails to build.
    public init(payload: JSONObject) {
        userInfo = payload
        guard let aps = payload["aps"]?.objectValue else { return }
        if let alert = aps["alert"] {
            if let text = alert.stringValue {
                body = text
            } else if let alert = alert.objectValue {
                title = alert["title"]?.stringValue
                subtitle = alert["subtitle"]?.stringValue
                body = alert["body"]?.stringValue
                titleLocKey = alert["title-loc-key"]?.stringValue
                titleLocArgs = Self.strings(alert["title-loc-args"])
                subtitleLocKey = alert["subtitle-loc-key"]?.stringValue
                subtitleLocArgs = Self.strings(alert["subtitle-loc-args"])
                locKey = alert["loc-key"]?.stringValue
                locArgs = Self.strings(alert["loc-args"])
                launchImageName = alert["launch-image"]?.stringValue
            }
        }
        badge = aps["badge"]?.numberValue?.intValue
        if let sound = aps["sound"], sound.stringValue != nil || sound.objectValue != nil { self.sound = sound }
        threadIdentifier = aps["thread-id"]?.stringValue
        categoryIdentifier = aps["category"]?.stringValue
        interruptionLevel = aps["interruption-level"]?.stringValue
        relevanceScore = aps["relevance-score"]?.numberValue
        targetContentIdentifier = aps["target-content-id"]?.stringValue
        filterCriteria = aps["filter-criteria"]?.stringValue
    }

    private static func strings(_ value: JSONValue?) -> [String]? {
        guard case .array(let elements)? = value else { return nil }
        let strings = elements.compactMap(\.stringValue)
        return strings.count == elements.count ? strings : nil
    }

    /// The content as the CLI prints it, members in the order of cli-v1.md.
    public var json: JSONObject {
        var object = JSONObject()
        func put(_ name: String, _ text: String?) { if let text { object[name] = .string(text) } }
        func put(_ name: String, _ list: [String]?) {
            if let list { object[name] = .array(list.map(JSONValue.string)) }
        }
        put("title", title)
        put("subtitle", subtitle)
        put("body", body)
        put("titleLocKey", titleLocKey)
        put("titleLocArgs", titleLocArgs)
        put("subtitleLocKey", subtitleLocKey)
        put("subtitleLocArgs", subtitleLocArgs)
        put("locKey", locKey)
        put("locArgs", locArgs)
        put("launchImageName", launchImageName)
        if let badge { object["badge"] = .number(JSONNumber(badge)) }
        if let sound { object["sound"] = sound }
        put("threadIdentifier", threadIdentifier)
        put("categoryIdentifier", categoryIdentifier)
        put("interruptionLevel", interruptionLevel)
        if let relevanceScore { object["relevanceScore"] = .number(relevanceScore) }
        put("targetContentIdentifier", targetContentIdentifier)
        put("filterCriteria", filterCriteria)
        object["userInfo"] = .object(userInfo)
        return object
    }
}
