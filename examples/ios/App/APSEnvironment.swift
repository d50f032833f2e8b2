// Which APNs environment this build's device token belongs to (examples/ios/README.md). `make
// test` type-checks this file, and runs `read(profile:)` on sample profiles
// (scripts/typecheck-apple.sh).
import Foundation

/// The APNs environment of the running build, for the registration's `environment`.
///
/// The `aps-environment` entitlement decides it, but an app cannot read its own entitlements. A
/// development or ad-hoc build carries its provisioning profile, `embedded.mobileprovision`,
/// which holds a copy: `development` there is the sandbox. An App Store or TestFlight build
/// carries no profile, and is production.
enum APSEnvironment: String, Sendable {
    /// `api.sandbox.push.apple.com`: development-signed builds.
    case sandbox
    /// `api.push.apple.com`: TestFlight, the App Store, ad-hoc builds.
    case production

    /// This build's environment.
    static var current: APSEnvironment {
        read(profile: Bundle.main.url(forResource: "embedded", withExtension: "mobileprovision"))
    }

    /// The environment a provisioning profile names; production without a profile, or with one
    /// that cannot be read (a wrong guess shows at once: APNs answers `BadDeviceToken`).
    static func read(profile url: URL?) -> APSEnvironment {
        guard let url, let data = try? Data(contentsOf: url) else { return .production }
        // A profile is a signed CMS message whose content, a property list in XML, sits in it
        // as it is: read that, with no need to check the signature (the system did).
        guard let start = data.range(of: Data("<?xml".utf8)),
            let end = data.range(of: Data("</plist>".utf8), in: start.lowerBound..<data.endIndex),
            let plist = try? PropertyListSerialization.propertyList(
                from: data[start.lowerBound..<end.upperBound], format: nil) as? [String: Any],
            let entitlements = plist["Entitlements"] as? [String: Any],
            let environment = entitlements["aps-environment"] as? String
        else { return .production }
        return environment == "development" ? .sandbox : .production
    }
}
