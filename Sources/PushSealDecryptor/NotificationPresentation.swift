public import PushSealCore

/// Every decision the extension makes in handing ``NotificationContent`` to Apple's
/// `UNMutableNotificationContent`, made here, in code Linux compiles and tests: only the last
/// assignment of each member to Apple's type is Apple-only (`NotificationContent+UserNotifications.swift`).
/// docs/ios.md, "Apple's content, member by member", lists where each member goes.
///
/// The rules, as Apple documents the payload keys:
/// - A text is localized when its key is given (`title-loc-key`, `subtitle-loc-key`, `loc-key`):
///   the key wins over the literal text, which iOS shows only without a key.
/// - `sound`: a name (`"default"` is the system sound), or the critical-alert object
///   `{"critical": 1, "name": …, "volume": 0…1}`, whose `name` `"default"` (or none) is the
///   default critical sound. A volume outside 0…1 is clamped; a missing one is 1.
/// - `interruption-level`: `passive`, `active`, `time-sensitive` or `critical`; anything else is
///   `active`, the default.
/// - `relevance-score`: clamped to 0…1, as Apple's range.
public struct NotificationPresentation: Sendable, Hashable {
    /// A text as the notification shows it.
    public enum Text: Sendable, Hashable {
        /// Shown as it is.
        case literal(String)
        /// Looked up in the app's `Localizable.strings` under `key`, with `arguments` put into the
        /// format (`NSString.localizedUserNotificationString(forKey:arguments:)`).
        case localized(key: String, arguments: [String])
    }

    /// The sound to play.
    public enum Sound: Sendable, Hashable {
        /// `UNNotificationSound.default`.
        case standard
        /// `UNNotificationSound(named:)`: a file of the app's bundle or its `Library/Sounds`.
        case named(String)
        /// `UNNotificationSound.defaultCriticalSound(withAudioVolume:)`.
        case standardCritical(volume: Float)
        /// `UNNotificationSound.criticalSoundNamed(_:withAudioVolume:)`.
        case namedCritical(String, volume: Float)
    }

    /// `UNNotificationInterruptionLevel`.
    public enum InterruptionLevel: String, Sendable, Hashable {
        case passive
        case active
        case timeSensitive = "time-sensitive"
        case critical
    }

    /// `title`; nil leaves it empty.
    public var title: Text?
    /// `subtitle`; nil leaves it empty.
    public var subtitle: Text?
    /// `body`; nil leaves it empty.
    public var body: Text?
    /// `badge`; nil leaves the app's badge as it is.
    public var badge: Int?
    /// `sound`; nil plays none.
    public var sound: Sound?
    /// `launchImageName` (`aps.alert.launch-image`), empty when absent.
    public var launchImageName: String
    /// `threadIdentifier`, empty when absent.
    public var threadIdentifier: String
    /// `categoryIdentifier`, empty when absent.
    public var categoryIdentifier: String
    /// `targetContentIdentifier`.
    public var targetContentIdentifier: String?
    /// `interruptionLevel`.
    public var interruptionLevel: InterruptionLevel
    /// `relevanceScore`, within 0…1; nil leaves Apple's default.
    public var relevanceScore: Double?
    /// `filterCriteria` (Focus filters).
    public var filterCriteria: String?
    /// `userInfo`: the decrypted payload, whole.
    public var userInfo: JSONObject

    /// The presentation of `content`.
    public init(_ content: NotificationContent) {
        title = Self.text(content.title, key: content.titleLocKey, arguments: content.titleLocArgs)
        subtitle = Self.text(content.subtitle, key: content.subtitleLocKey, arguments: content.subtitleLocArgs)
        body = Self.text(content.body, key: content.locKey, arguments: content.locArgs)
        badge = content.badge
        sound = content.sound.flatMap(Self.sound)
        launchImageName = content.launchImageName ?? ""
        threadIdentifier = content.threadIdentifier ?? ""
        categoryIdentifier = content.categoryIdentifier ?? ""
        targetContentIdentifier = content.targetContentIdentifier
        interruptionLevel = content.interruptionLevel.flatMap(InterruptionLevel.init(rawValue:)) ?? .active
        relevanceScore = content.relevanceScore?.doubleValue.map { min(1, max(0, $0)) }
        filterCriteria = content.filterCriteria
        userInfo = content.userInfo
    }

    private static func text(_ literal: String?, key: String?, arguments: [String]?) -> Text? {
        if let key { return .localized(key: key, arguments: arguments ?? []) }
        return literal.map(Text.literal)
    }

    private static func sound(_ value: JSONValue) -> Sound? {
        if let name = value.stringValue { return name == "default" ? .standard : .named(name) }
        guard let object = value.objectValue else { return nil }
        let name = object["name"]?.stringValue
        let critical = object["critical"]?.numberValue?.intValue == 1
        guard critical else { return name.map { $0 == "default" ? .standard : .named($0) } }
        let volume = Float(min(1, max(0, object["volume"]?.numberValue?.doubleValue ?? 1)))
        guard let name, name != "default" else { return .standardCritical(volume: volume) }
        return .namedCritical(name, volume: volume)
    }
}
