#if canImport(UserNotifications)
    public import UserNotifications
    import PushSealCore

    /// The adapter to Apple's type. Built only on Apple platforms and not exercised by the Linux
    /// test suite: it is a thin mapping, untested here.
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
            switch content.interruptionLevel {
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
#endif
