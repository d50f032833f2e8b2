// A stand-in for Apple's UserNotifications framework, for `scripts/typecheck-apple.sh` alone: it
// declares exactly the API that PushSeal's Apple-only files and docs/ios.md's extension call,
// with Apple's names and signatures, so that those files type-check on Linux. Each declaration
// names the symbol of Apple's documentation it stands for, and its availability as the iPhoneOS
// SDK's headers declare it (API_AVAILABLE, API_UNAVAILABLE; none: as its class). Compiled with
// PUSHSEAL_STANDIN_MACOS, what those headers mark unavailable on macOS is unavailable, so that
// the script's second pass, as for macOS, refuses code that would not build on a Mac. Nothing
// here runs: every body traps.

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

/// Documentation: UserNotifications/UNNotificationSound. API_AVAILABLE(macos(10.14), ios(10.0),
/// watchos(3.0)) API_UNAVAILABLE(tvos).
open class UNNotificationSound: NSObject {
    /// UNNotificationSound.default.
    open class var `default`: UNNotificationSound { fatalError("stand-in") }
    /// UNNotificationSound.init(named:). API_UNAVAILABLE(watchos, tvos).
    public convenience init(named name: UNNotificationSoundName) { fatalError("stand-in") }
    /// UNNotificationSound.defaultCriticalSound(withAudioVolume:). API_AVAILABLE(ios(12.0),
    /// watchos(5.0)) API_UNAVAILABLE(tvos).
    open class func defaultCriticalSound(withAudioVolume volume: Float) -> UNNotificationSound {
        fatalError("stand-in")
    }
    /// UNNotificationSound.criticalSoundNamed(_:withAudioVolume:). API_AVAILABLE(ios(12.0))
    /// API_UNAVAILABLE(watchos, tvos).
    open class func criticalSoundNamed(_ name: UNNotificationSoundName, withAudioVolume volume: Float)
        -> UNNotificationSound
    { fatalError("stand-in") }
}

/// Documentation: UserNotifications/UNNotificationInterruptionLevel. API_AVAILABLE(macos(12.0),
/// ios(15.0), watchos(8.0), tvos(15.0)).
public enum UNNotificationInterruptionLevel: UInt, Sendable {
    case passive, active, timeSensitive, critical
}

/// Documentation: UserNotifications/UNNotificationAttachment. API_AVAILABLE(macos(10.14), ios(10.0),
/// watchos(3.0)) API_UNAVAILABLE(tvos).
open class UNNotificationAttachment: NSObject {
    /// UNNotificationAttachment.init(identifier:url:options:).
    public convenience init(identifier: String, url URL: URL, options: [AnyHashable: Any]? = nil) throws {
        fatalError("stand-in")
    }
}

/// Documentation: UserNotifications/UNNotificationContent. API_AVAILABLE(macos(10.14), ios(10.0),
/// watchos(3.0), tvos(10.0)).
open class UNNotificationContent: NSObject {
    /// UNNotificationContent.userInfo. API_UNAVAILABLE(tvos).
    open var userInfo: [AnyHashable: Any] { fatalError("stand-in") }
}

/// Documentation: UserNotifications/UNMutableNotificationContent. API_AVAILABLE(macos(10.14),
/// ios(10.0), watchos(3.0), tvos(10.0)).
open class UNMutableNotificationContent: UNNotificationContent {
    /// UNMutableNotificationContent.title, subtitle, body. API_UNAVAILABLE(tvos).
    open var title = ""
    open var subtitle = ""
    open var body = ""
    /// UNMutableNotificationContent.badge.
    open var badge: NSNumber?
    /// UNMutableNotificationContent.sound. API_UNAVAILABLE(tvos).
    open var sound: UNNotificationSound?
    /// UNMutableNotificationContent.launchImageName. API_UNAVAILABLE(macos, tvos).
    #if PUSHSEAL_STANDIN_MACOS
        @available(*, unavailable, message: "API_UNAVAILABLE(macos, tvos)")
    #endif
    open var launchImageName: String {
        get { fatalError("stand-in") }
        set { fatalError("stand-in") }
    }
    /// UNMutableNotificationContent.threadIdentifier. API_UNAVAILABLE(tvos).
    open var threadIdentifier = ""
    /// UNMutableNotificationContent.categoryIdentifier. API_UNAVAILABLE(tvos).
    open var categoryIdentifier = ""
    /// UNMutableNotificationContent.targetContentIdentifier. API_AVAILABLE(ios(13.0)).
    open var targetContentIdentifier: String?
    /// UNMutableNotificationContent.interruptionLevel. API_AVAILABLE(macos(12.0), ios(15.0),
    /// watchos(8.0), tvos(15.0)).
    open var interruptionLevel = UNNotificationInterruptionLevel.active
    /// UNMutableNotificationContent.relevanceScore. API_AVAILABLE(macos(12.0), ios(15.0),
    /// watchos(8.0), tvos(15.0)).
    open var relevanceScore = 0.0
    /// UNMutableNotificationContent.filterCriteria. API_AVAILABLE(macos(13.0), ios(16.0),
    /// watchos(9.0)).
    open var filterCriteria: String?
    /// UNMutableNotificationContent.attachments. API_UNAVAILABLE(tvos).
    open var attachments: [UNNotificationAttachment] = []
    /// UNMutableNotificationContent.userInfo (settable here). API_UNAVAILABLE(tvos).
    open override var userInfo: [AnyHashable: Any] {
        get { fatalError("stand-in") }
        set { fatalError("stand-in") }
    }
}

/// Documentation: UserNotifications/UNNotificationRequest. API_AVAILABLE(macos(10.14), ios(10.0),
/// watchos(3.0), tvos(10.0)).
open class UNNotificationRequest: NSObject {
    /// UNNotificationRequest.content.
    open var content: UNNotificationContent { fatalError("stand-in") }
}

/// Documentation: UserNotifications/UNNotificationServiceExtension. API_AVAILABLE(macos(10.14),
/// ios(10.0), watchos(6.0)) API_UNAVAILABLE(tvos).
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
    /// declared by UserNotifications. API_AVAILABLE(macos(10.14), ios(10.0), watchos(3.0))
    /// API_UNAVAILABLE(tvos).
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

/// Documentation: UserNotifications/UNAuthorizationOptions. API_AVAILABLE(macos(10.14), ios(10.0),
/// watchos(3.0), tvos(10.0)).
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
/// API_AVAILABLE(macos(10.14), ios(10.0), watchos(3.0), tvos(10.0)).
open class UNUserNotificationCenter: NSObject, @unchecked Sendable {
    /// UNUserNotificationCenter.current().
    open class func current() -> UNUserNotificationCenter { fatalError("stand-in") }
    /// UNUserNotificationCenter.requestAuthorization(options:), the async form.
    open func requestAuthorization(options: UNAuthorizationOptions = []) async throws -> Bool {
        fatalError("stand-in")
    }
}
