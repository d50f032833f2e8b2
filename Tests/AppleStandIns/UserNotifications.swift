// A stand-in for Apple's UserNotifications framework, for `scripts/typecheck-apple.sh` alone: it
// declares exactly the API that PushSeal's Apple-only files and docs/ios.md's extension call,
// with Apple's names and signatures, so that those files type-check on Linux. Each declaration
// names the symbol of Apple's documentation it stands for. Nothing here runs: every body traps.

import Foundation

/// Documentation: UserNotifications/UNNotificationSoundName.
public struct UNNotificationSoundName: RawRepresentable, Hashable, Sendable {
    /// The file name.
    public var rawValue: String
    /// UNNotificationSoundName.init(rawValue:).
    public init(rawValue: String) { self.rawValue = rawValue }
    /// UNNotificationSoundName.init(_:).
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// Documentation: UserNotifications/UNNotificationSound.
open class UNNotificationSound: NSObject {
    /// UNNotificationSound.default.
    open class var `default`: UNNotificationSound { fatalError("stand-in") }
    /// UNNotificationSound.init(named:).
    public convenience init(named name: UNNotificationSoundName) { fatalError("stand-in") }
    /// UNNotificationSound.defaultCriticalSound(withAudioVolume:).
    open class func defaultCriticalSound(withAudioVolume volume: Float) -> UNNotificationSound {
        fatalError("stand-in")
    }
    /// UNNotificationSound.criticalSoundNamed(_:withAudioVolume:).
    open class func criticalSoundNamed(_ name: UNNotificationSoundName, withAudioVolume volume: Float)
        -> UNNotificationSound
    { fatalError("stand-in") }
}

/// Documentation: UserNotifications/UNNotificationInterruptionLevel.
public enum UNNotificationInterruptionLevel: UInt, Sendable {
    case passive, active, timeSensitive, critical
}

/// Documentation: UserNotifications/UNNotificationAttachment.
open class UNNotificationAttachment: NSObject {
    /// UNNotificationAttachment.init(identifier:url:options:).
    public convenience init(identifier: String, url URL: URL, options: [AnyHashable: Any]? = nil) throws {
        fatalError("stand-in")
    }
}

/// Documentation: UserNotifications/UNNotificationContent.
open class UNNotificationContent: NSObject {
    /// UNNotificationContent.userInfo.
    open var userInfo: [AnyHashable: Any] { fatalError("stand-in") }
}

/// Documentation: UserNotifications/UNMutableNotificationContent.
open class UNMutableNotificationContent: UNNotificationContent {
    /// UNMutableNotificationContent.title, subtitle, body.
    open var title = ""
    open var subtitle = ""
    open var body = ""
    /// UNMutableNotificationContent.badge.
    open var badge: NSNumber?
    /// UNMutableNotificationContent.sound.
    open var sound: UNNotificationSound?
    /// UNMutableNotificationContent.launchImageName.
    open var launchImageName = ""
    /// UNMutableNotificationContent.threadIdentifier.
    open var threadIdentifier = ""
    /// UNMutableNotificationContent.categoryIdentifier.
    open var categoryIdentifier = ""
    /// UNMutableNotificationContent.targetContentIdentifier.
    open var targetContentIdentifier: String?
    /// UNMutableNotificationContent.interruptionLevel.
    open var interruptionLevel = UNNotificationInterruptionLevel.active
    /// UNMutableNotificationContent.relevanceScore.
    open var relevanceScore = 0.0
    /// UNMutableNotificationContent.filterCriteria.
    open var filterCriteria: String?
    /// UNMutableNotificationContent.attachments.
    open var attachments: [UNNotificationAttachment] = []
    /// UNMutableNotificationContent.userInfo (settable here).
    open override var userInfo: [AnyHashable: Any] {
        get { fatalError("stand-in") }
        set { fatalError("stand-in") }
    }
}

/// Documentation: UserNotifications/UNNotificationRequest.
open class UNNotificationRequest: NSObject {
    /// UNNotificationRequest.content.
    open var content: UNNotificationContent { fatalError("stand-in") }
}

/// Documentation: UserNotifications/UNNotificationServiceExtension.
open class UNNotificationServiceExtension: NSObject {
    /// UNNotificationServiceExtension.didReceive(_:withContentHandler:).
    open func didReceive(
        _ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {}
    /// UNNotificationServiceExtension.serviceExtensionTimeWillExpire().
    open func serviceExtensionTimeWillExpire() {}
}

extension NSString {
    /// Documentation: Foundation/NSString/localizedUserNotificationString(forKey:arguments:),
    /// declared by UserNotifications.
    public class func localizedUserNotificationString(forKey key: String, arguments: [Any]?) -> String {
        fatalError("stand-in")
    }
}

extension FileManager {
    /// Documentation: Foundation/FileManager/containerURL(forSecurityApplicationGroupIdentifier:),
    /// which corelibs Foundation lacks (app groups are Apple's).
    public func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL? {
        fatalError("stand-in")
    }
}

/// Documentation: UserNotifications/UNAuthorizationOptions.
public struct UNAuthorizationOptions: OptionSet, Sendable {
    /// The options' bits.
    public let rawValue: UInt
    /// UNAuthorizationOptions.init(rawValue:).
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// UNAuthorizationOptions.badge.
    public static let badge = UNAuthorizationOptions(rawValue: 1 << 0)
    /// UNAuthorizationOptions.sound.
    public static let sound = UNAuthorizationOptions(rawValue: 1 << 1)
    /// UNAuthorizationOptions.alert.
    public static let alert = UNAuthorizationOptions(rawValue: 1 << 2)
}

/// Documentation: UserNotifications/UNUserNotificationCenter (Sendable in Apple's SDK).
open class UNUserNotificationCenter: NSObject, @unchecked Sendable {
    /// UNUserNotificationCenter.current().
    open class func current() -> UNUserNotificationCenter { fatalError("stand-in") }
    /// UNUserNotificationCenter.requestAuthorization(options:), the async form.
    open func requestAuthorization(options: UNAuthorizationOptions = []) async throws -> Bool {
        fatalError("stand-in")
    }
}
