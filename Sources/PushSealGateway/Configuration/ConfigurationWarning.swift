internal import PushSealCore

/// Something in the configuration the operator should change, though the gateway serves as it is
/// (a member an earlier 1.x did not have, so that a minor upgrade never stops a working gateway):
/// logged at start (`configuration-warning`) and shown on the status page until it is fixed.
public struct ConfigurationWarning: Sendable, Equatable, CustomStringConvertible {
    /// The member at fault, as a JSON path (`$.webpush.navigate`).
    public let path: String
    /// What is wrong, and what to do.
    public let message: String

    /// A warning about the member at `path`.
    init(path: JSONPath, message: String) {
        self.path = path.description
        self.message = message
    }

    /// `$.webpush.navigate is missing: …`.
    public var description: String { "\(path) \(message)" }
}
