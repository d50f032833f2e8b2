public import PushSealCore

/// What the store accepts besides its keys: whether an unsealed payload may be shown.
///
/// With ``requireSealed`` set, a payload without an envelope (no `enc`, or an `enc` that is not a
/// string) degrades with `not-sealed`, and any payload that does not open, for any reason
/// (`timeout` included), degrades with its reason: either way what is shown is the neutral text
/// below and nothing else of the payload, so that a spoofed push can neither show its text nor
/// route the app. ``Decryptor/policy`` fixes a policy in code, above the store's. Kept in
/// `keys.json` as `"policy": {"require-sealed": true, "neutral-title": …, "neutral-body": …}`.
public struct StorePolicy: Sendable, Equatable {
    /// Refuse unsealed payloads.
    public var requireSealed: Bool
    /// The title shown in place of an unsealed payload's.
    public var neutralTitle: String
    /// The body shown in place of an unsealed payload's.
    public var neutralBody: String

    /// Unsealed payloads pass through as `plain`: the default, as in envelope v1.
    public static let allowUnsealed = StorePolicy(requireSealed: false)

    /// A policy; the neutral text defaults to a generic notice.
    public init(
        requireSealed: Bool, neutralTitle: String = "New notification", neutralBody: String = "Open the app to view it."
    ) {
        self.requireSealed = requireSealed
        self.neutralTitle = neutralTitle
        self.neutralBody = neutralBody
    }

    /// The payload shown instead of an unsealed one: the neutral alert and nothing else.
    public var neutralPayload: JSONObject {
        let alert = JSONObject([("title", .string(neutralTitle)), ("body", .string(neutralBody))])
        return JSONObject([("aps", .object(JSONObject([("alert", .object(alert))])))])
    }

    /// The `policy` member of `keys.json`.
    var record: JSONObject {
        JSONObject([
            ("require-sealed", .bool(requireSealed)), ("neutral-title", .string(neutralTitle)),
            ("neutral-body", .string(neutralBody)),
        ])
    }

    /// Reads the `policy` member, naming what is wrong with it.
    init(record: JSONObject, path: String) throws {
        guard case .bool(let requireSealed)? = record["require-sealed"],
            let title = record["neutral-title"]?.stringValue, let body = record["neutral-body"]?.stringValue
        else {
            throw PushSealError(
                .keyStoreUnavailable,
                "\(path) has a malformed \"policy\" (require-sealed: boolean; neutral-title, neutral-body: strings)")
        }
        self.init(requireSealed: requireSealed, neutralTitle: title, neutralBody: body)
    }
}
