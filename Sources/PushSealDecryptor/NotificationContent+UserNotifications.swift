#if canImport(UserNotifications)
    public import UserNotifications
    public import PushSealCore
    import Foundation

    /// The adapters to Apple's types. Built only on Apple platforms and not exercised by the
    /// Linux test suite: thin mappings, not compiled or tested here (see the README's iOS section).
    extension UNMutableNotificationContent {
        /// Content with the title, subtitle, body and the rest taken from `content`.
        public convenience init(_ content: NotificationContent) {
            self.init()
            title = content.title ?? ""
            subtitle = content.subtitle ?? ""
            body = content.body ?? ""
            badge = content.badge.map { NSNumber(value: $0) }
            if let name = content.sound?.stringValue {
                sound = name == "default" ? .default : UNNotificationSound(named: UNNotificationSoundName(name))
            }
            threadIdentifier = content.threadIdentifier ?? ""
            categoryIdentifier = content.categoryIdentifier ?? ""
            targetContentIdentifier = content.targetContentIdentifier
            if let score = content.relevanceScore?.doubleValue { relevanceScore = score }
            switch ExactText(content.interruptionLevel ?? "") {
            case "passive": interruptionLevel = .passive
            case "time-sensitive": interruptionLevel = .timeSensitive
            case "critical": interruptionLevel = .critical
            default: interruptionLevel = .active
            }
            if let data = JSONWriter.string(.object(content.userInfo)).data(using: .utf8),
                let info = try? JSONSerialization.jsonObject(with: data) as? [AnyHashable: Any]
            {
                userInfo = info
            }
        }
    }

    extension JSONObject {
        /// A notification's `userInfo` as the decryptor reads it, or nil when it is not a JSON
        /// object (it always is for a remote notification).
        public init?(userInfo: [AnyHashable: Any]) {
            guard JSONSerialization.isValidJSONObject(userInfo),
                let data = try? JSONSerialization.data(withJSONObject: userInfo),
                let object = try? JSONParser.parse(Array(data)).objectValue
            else { return nil }
            self = object
        }
    }
#endif
