package import PushSealCore

/// The kind of push, which fixes the outer payload's shape, the size limit and the APNs headers.
public struct PushType: Hashable, Sendable, CustomStringConvertible {
    /// The `apns-push-type` header value.
    public let name: String
    /// The largest outer payload APNs accepts, in bytes.
    public let sizeLimit: Int
    /// The default `apns-priority`.
    public let defaultPriority: Int

    /// A visible notification: placeholder alert and `mutable-content: 1`, so the extension runs.
    public static let alert = PushType(name: "alert", sizeLimit: 4096, defaultPriority: 10)
    /// A silent push (`content-available: 1`), opened by the app itself; it carries no alert.
    public static let background = PushType(name: "background", sizeLimit: 4096, defaultPriority: 5)
    /// A PushKit VoIP push: the envelope and clear members only, with its larger limit.
    public static let voip = PushType(name: "voip", sizeLimit: 5120, defaultPriority: 10)

    /// The push type named `name` (`alert`, `background`, `voip`).
    public init?(name: String) {
        switch ExactText(name) {
        case "alert": self = .alert
        case "background": self = .background
        case "voip": self = .voip
        default: return nil
        }
    }

    private init(name: String, sizeLimit: Int, defaultPriority: Int) {
        self.name = name
        self.sizeLimit = sizeLimit
        self.defaultPriority = defaultPriority
    }

    /// A readable form that never shows key material.
    public var description: String { name }
}

/// The alert shown when the extension cannot open the envelope.
public enum Placeholder: Sendable, Hashable {
    /// A fixed title and body; either may be omitted.
    case text(title: String?, body: String?)
    /// A localised alert: `loc-key` names a string in the app's bundle.
    case localized(key: String)

    /// The defaults of cli-v1.md: "New notification" / "Open the app to view it.".
    public static let standard = Placeholder.text(title: "New notification", body: "Open the app to view it.")

    /// The outer `aps.alert` object.
    package var alert: JSONObject {
        var alert = JSONObject()
        switch self {
        case .text(let title, let body):
            if let title { alert["title"] = .string(title) }
            if let body { alert["body"] = .string(body) }
        case .localized(let key):
            alert["loc-key"] = .string(key)
        }
        return alert
    }
}

/// What to do with a payload that cannot fit APNs' limit.
public enum OverflowPolicy: Sendable, Hashable {
    /// Refuse it with `PushSealError.Code.payloadTooLarge`.
    case fail
    /// Shorten the alert body on a character boundary, ending in `…`, until it fits.
    case truncateBody
}
