// The app's delegate (examples/ios/README.md): asks for permission to show notifications,
// registers with APNs on every launch, hands each device token to `PushRegistration`, and sends
// the receipts the extension kept.
// `make test` type-checks this file against stand-ins of UIKit and UserNotifications
// (scripts/typecheck-apple.sh). In a SwiftUI app, attach it with
// `@UIApplicationDelegateAdaptor(AppDelegate.self) var appDelegate`.
import Foundation
import PushSealCore
import UIKit
import UserNotifications

/// Permission, APNs registration, and PushSeal's registration with the backend.
final class AppDelegate: NSObject, UIApplicationDelegate {
    /// The backend's endpoint that forwards a registration to pushseal-gateway.
    static let backend = URL(string: "https://api.example.com/devices")!

    /// The registration; nil only when the sender key is missing from the bundle, which
    /// `registrationProblem` then names.
    private let registration: PushRegistration?
    /// Why there is no registration, for the app's diagnostics.
    private let registrationProblem: String?

    override init() {
        do {
            // The backend's sender public key ships in the bundle (never fetched at run time).
            guard let url = Bundle.main.url(forResource: "pushseal-sender.pub", withExtension: "jwk") else {
                throw PushSealError(.invalidKey, "pushseal-sender.pub.jwk is not in the app's bundle")
            }
            registration = try PushRegistration(
                backend: Self.backend, senderPublicJWK: String(contentsOf: url, encoding: .utf8),
                environment: APSEnvironment.current.rawValue)
            registrationProblem = nil
        } catch {
            registration = nil
            registrationProblem = "\(error)"
        }
        super.init()
    }

    func application(
        _ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        Task {
            // iOS asks the user once and remembers the answer; without permission, pushes still
            // arrive but are not shown. Register with APNs on every launch: the token can change.
            _ = try? await UNUserNotificationCenter.current().requestAuthorization(options: [.alert, .badge, .sound])
            application.registerForRemoteNotifications()
        }
        registration?.sendKeptReceipts()
        return true
    }

    func application(_ application: UIApplication, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data) {
        guard let registration else {
            NSLog("PushSeal: not registering: %@", registrationProblem ?? "no registration")
            return
        }
        Task {
            do {
                try await registration.register(deviceToken: deviceToken)
            } catch {
                // The key stays uncommitted; the next launch registers again.
                NSLog("PushSeal: registration failed: %@", "\(error)")
            }
        }
    }

    func application(_ application: UIApplication, didFailToRegisterForRemoteNotificationsWithError error: any Error) {
        // No push entitlement in this build, or no network: the next launch tries again.
        NSLog("PushSeal: APNs registration failed: %@", "\(error)")
    }
}
