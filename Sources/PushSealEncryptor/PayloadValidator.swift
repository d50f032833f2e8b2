internal import PushSealCore

/// Checks an APNs payload against Apple's rules before it is sealed. Each failure is a
/// `PushSealError.Code.invalidPayload` error whose message starts with the JSON path
/// (``JSONPath``: `$.aps['interruption-level']`).
enum PayloadValidator {
    static let alertMembers: [String] = [
        "title", "subtitle", "body", "title-loc-key", "title-loc-args", "subtitle-loc-key", "subtitle-loc-args",
        "loc-key", "loc-args", "launch-image",
    ]
    static let interruptionLevels: [String] = ["passive", "active", "time-sensitive", "critical"]

    /// True when `name` is one of `names`, byte for byte (see ``ExactText``).
    private static func isOne(of names: [String], _ name: String) -> Bool {
        names.contains { $0.isExactly(name) }
    }

    static func validate(_ payload: JSONObject, pushType: PushType) throws {
        if payload["enc"] != nil {
            throw invalid(JSONPath.root.member("enc"), "is reserved for the envelope and must not be in the payload")
        }
        // `media` is reserved for a media-v1 descriptor, with or without a contract.
        if let media = payload["media"] { _ = try MediaDescriptor.inPayload(media) }
        guard let apsValue = payload["aps"] else {
            if pushType == .voip { return }
            throw invalid(apsPath, "is missing: an \(pushType) push needs an aps object")
        }
        guard let aps = apsValue.objectValue else {
            throw invalid(apsPath, "must be an object, not \(apsValue.typeName)")
        }

        if let alert = aps["alert"] {
            if pushType == .background { throw invalid(apsPath.member("alert"), "must be absent in a background push") }
            try validateAlert(alert)
        }
        if let badge = aps["badge"] {
            guard let count = badge.numberValue?.intValue, count >= 0 else {
                throw invalid(apsPath.member("badge"), "must be an integer ≥ 0, not \(describe(badge))")
            }
        }
        if let sound = aps["sound"] { try validateSound(sound) }
        for member in ["thread-id", "category", "target-content-id"] {
            if let value = aps[member], value.stringValue == nil {
                throw invalid(apsPath.member(member), "must be a string, not \(value.typeName)")
            }
        }
        if let level = aps["interruption-level"] {
            guard let name = level.stringValue, isOne(of: interruptionLevels, name) else {
                throw invalid(
                    apsPath.member("interruption-level"),
                    "must be one of passive, active, time-sensitive, critical, not \(describe(level))")
            }
        }
        if let score = aps["relevance-score"] {
            guard let value = score.numberValue?.doubleValue, (0...1).contains(value) else {
                throw invalid(apsPath.member("relevance-score"), "must be a number from 0 to 1, not \(describe(score))")
            }
        }
        if let available = aps["content-available"] {
            guard available.numberValue?.intValue == 1 else {
                throw invalid(apsPath.member("content-available"), "must be 1 when present, not \(describe(available))")
            }
            guard pushType == .background else {
                throw invalid(
                    apsPath.member("content-available"), "is only for background pushes (this is \(pushType))")
            }
        }
        if let mutable = aps["mutable-content"], ![0, 1].contains(mutable.numberValue?.intValue) {
            throw invalid(apsPath.member("mutable-content"), "must be 0 or 1, not \(describe(mutable))")
        }
    }

    private static func validateAlert(_ alert: JSONValue) throws {
        if alert.stringValue != nil { return }
        guard let object = alert.objectValue else {
            throw invalid(apsPath.member("alert"), "must be a string or an object, not \(alert.typeName)")
        }
        for (name, value) in object {
            // The path is built only for an error: most payloads have none.
            let path = { apsPath.member("alert").member(name) }
            guard isOne(of: alertMembers, name) else {
                throw invalid(
                    path(), "is not an alert member (known: \(alertMembers.sorted().joined(separator: ", ")))")
            }
            if name.hasSuffix("-args") {
                guard case .array(let arguments) = value, arguments.allSatisfy({ $0.stringValue != nil }) else {
                    throw invalid(path(), "must be an array of strings, not \(value.typeName)")
                }
            } else if value.stringValue == nil {
                throw invalid(path(), "must be a string, not \(value.typeName)")
            }
        }
    }

    private static func validateSound(_ sound: JSONValue) throws {
        if sound.stringValue != nil { return }
        guard let object = sound.objectValue else {
            throw invalid(apsPath.member("sound"), "must be a string or a critical-sound object, not \(sound.typeName)")
        }
        for (name, value) in object {
            let path = { apsPath.member("sound").member(name) }
            switch ExactText(name) {
            case "critical":
                guard [0, 1].contains(value.numberValue?.intValue) else { throw invalid(path(), "must be 0 or 1") }
            case "name":
                guard value.stringValue != nil else {
                    throw invalid(path(), "must be a string, not \(value.typeName)")
                }
            case "volume":
                guard let volume = value.numberValue?.doubleValue, (0...1).contains(volume) else {
                    throw invalid(path(), "must be a number from 0 to 1, not \(describe(value))")
                }
            default:
                throw invalid(path(), "is not a sound member (known: critical, name, volume)")
            }
        }
    }

    private static func describe(_ value: JSONValue) -> String {
        switch value {
        case .number(let number): number.literal
        case .string(let string): "\"\(string.prefix(40))\""
        default: value.typeName
        }
    }

    private static let apsPath = JSONPath.root.member("aps")

    static func invalid(_ path: JSONPath, _ message: String) -> PushSealError {
        PushSealError(.invalidPayload, "\(path) \(message)")
    }
}
