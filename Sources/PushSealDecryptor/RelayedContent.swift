public import PushSealCore

/// What a forwarded Web Push message hands the app, kept apart from what the app's backend sets
/// (webpush-v1.md, "What the app is handed"): a relay sender is anyone the app gave an endpoint
/// to, so nothing it sets may pass for the backend's own members. The notification shows the
/// mapping's `aps`; every other member the mapping gave (a Mastodon notification's members, a
/// declarative message's `navigate` and `data`, an APNs-shaped message's own) goes under
/// ``member`` alone, with the relay endpoint that received it. So no sender sets the app's
/// `event_id`, `media` (the extension fetches none for it), or any name the app routes on.
public struct RelayedContent: Sendable {
    /// The member of `userInfo` that holds what the sender set.
    public static let member = "relayed"

    /// The payload to show: the mapping's `aps`, and ``member``.
    public let payload: JSONObject
    /// What the event ledger records for the sender's `event_id` (a Mastodon notification's
    /// `notification_id`, which the standard mapping names so): scoped by the endpoint, so that
    /// two senders' equal ids (every Mastodon server counts from 1) are not each other's repeat,
    /// nor any sender's the backend's. Nil when the sender gave none.
    public let ledgerEventID: String?

    /// The content a mapping made of a message posted to `endpoint` (nil: the relay named none,
    /// before 1.4.0).
    public init(mapped: JSONObject, endpoint: String?) {
        var relayed = JSONObject(mapped.members.filter { $0.name != "aps" })
        if let endpoint { relayed["endpoint"] = .string(endpoint) }
        var payload = JSONObject([(Self.member, .object(relayed))])
        if let aps = mapped["aps"] { payload["aps"] = aps }
        self.payload = payload
        let id: String? =
            switch mapped["event_id"] {
            case .string(let text)? where !text.isEmpty: text
            case .number(let number)?: number.literal
            default: nil
            }
        ledgerEventID = id.map { "webpush \(endpoint ?? "-") \($0)" }
    }
}
