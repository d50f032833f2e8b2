// A stand-in for the part of Apple's UIKit that examples/ios's app delegate calls, for
// `scripts/typecheck-apple.sh` alone, with Apple's names and signatures; each declaration names
// the symbol of Apple's documentation it stands for. Nothing here runs: every body traps.

import Foundation

/// Documentation: UIKit/UIResponder.
@MainActor
open class UIResponder: NSObject {}

/// Documentation: UIKit/UIApplication.
@MainActor
open class UIApplication: UIResponder {
    /// UIApplication.shared.
    open class var shared: UIApplication { fatalError("stand-in") }
    /// UIApplication.registerForRemoteNotifications().
    open func registerForRemoteNotifications() { fatalError("stand-in") }

    /// Documentation: UIKit/UIApplication/LaunchOptionsKey.
    public struct LaunchOptionsKey: RawRepresentable, Hashable, Sendable {
        /// The key's name.
        public var rawValue: String
        /// LaunchOptionsKey.init(rawValue:).
        public init(rawValue: String) { self.rawValue = rawValue }
    }
}

/// Documentation: UIKit/UIApplicationDelegate. Its methods are optional in Objective-C; here each
/// has an empty default, which a delegate overrides as it would implement the optional one.
@MainActor
public protocol UIApplicationDelegate: NSObjectProtocol {
    /// application(_:didFinishLaunchingWithOptions:).
    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool
    /// application(_:didRegisterForRemoteNotificationsWithDeviceToken:).
    func application(_ application: UIApplication, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data)
    /// application(_:didFailToRegisterForRemoteNotificationsWithError:).
    func application(_ application: UIApplication, didFailToRegisterForRemoteNotificationsWithError error: any Error)
}

extension UIApplicationDelegate {
    /// The optional method's absence.
    public func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool { true }
    /// The optional method's absence.
    public func application(
        _ application: UIApplication, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data
    ) {}
    /// The optional method's absence.
    public func application(
        _ application: UIApplication, didFailToRegisterForRemoteNotificationsWithError error: any Error
    ) {}
}
