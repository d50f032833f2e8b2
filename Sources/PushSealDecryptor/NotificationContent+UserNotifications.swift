#if canImport(UserNotifications)
    public import UserNotifications
    public import PushSealCore
    import Foundation

    /// The adapters to Apple's types. Every decision is ``NotificationPresentation``'s, which Linux
    /// compiles and tests; what is left here is one assignment per member. Built on Apple
    /// platforms, and type-checked on Linux against stand-ins of the UserNotifications API it
    /// calls (`scripts/typecheck-apple.sh`, run by `make test`, once as for iOS and once as for
    /// macOS, where the stand-ins make what Apple's SDK marks unavailable there unavailable).
    extension UNMutableNotificationContent {
        /// Content with every member of `content` where Apple documents it: the texts literal or
        /// localized, the sound (critical ones included), the badge, launch image, thread,
        /// category, target content id, interruption level, relevance score, filter criteria and
        /// `userInfo`. Attachments are the caller's (``PushSealNotificationService`` adds the
        /// media).
        public convenience init(_ content: NotificationContent) {
            self.init()
            let presentation = NotificationPresentation(content)
            title = Self.string(presentation.title)
            subtitle = Self.string(presentation.subtitle)
            body = Self.string(presentation.body)
            badge = presentation.badge.map { NSNumber(value: $0) }
            sound = presentation.sound.map(Self.sound)
            // API_UNAVAILABLE(macos, tvos) in Apple's SDK: a Mac shows no launch image.
            #if !os(macOS) && !os(tvOS) && !PUSHSEAL_TYPECHECK_MACOS
                launchImageName = presentation.launchImageName
            #endif
            threadIdentifier = presentation.threadIdentifier
            categoryIdentifier = presentation.categoryIdentifier
            targetContentIdentifier = presentation.targetContentIdentifier
            interruptionLevel = Self.level(presentation.interruptionLevel)
            if let score = presentation.relevanceScore { relevanceScore = score }
            filterCriteria = presentation.filterCriteria
            userInfo = Self.userInfo(presentation.userInfo)
        }

        private static func string(_ text: NotificationPresentation.Text?) -> String {
            switch text {
            case nil: ""
            case .literal(let text)?: text
            case .localized(let key, let arguments)?:
                NSString.localizedUserNotificationString(forKey: key, arguments: arguments)
            }
        }

        private static func sound(_ sound: NotificationPresentation.Sound) -> UNNotificationSound {
            switch sound {
            case .standard: .default
            case .named(let name): UNNotificationSound(named: UNNotificationSoundName(name))
            case .standardCritical(let volume): .defaultCriticalSound(withAudioVolume: volume)
            case .namedCritical(let name, let volume):
                .criticalSoundNamed(UNNotificationSoundName(name), withAudioVolume: volume)
            }
        }

        private static func level(_ level: NotificationPresentation.InterruptionLevel)
            -> UNNotificationInterruptionLevel
        {
            switch level {
            case .passive: .passive
            case .active: .active
            case .timeSensitive: .timeSensitive
            case .critical: .critical
            }
        }

        private static func userInfo(_ payload: JSONObject) -> [AnyHashable: Any] {
            guard let data = JSONWriter.string(.object(payload)).data(using: .utf8),
                let info = try? JSONSerialization.jsonObject(with: data) as? [AnyHashable: Any]
            else { return [:] }
            return info
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
