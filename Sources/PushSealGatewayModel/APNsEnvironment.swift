/// The APNs environment a device token belongs to.
package enum APNsEnvironment: String, Sendable, CaseIterable {
    /// `api.push.apple.com`.
    case production
    /// `api.sandbox.push.apple.com`.
    case sandbox
}
