/// Where a notification leads: a screen (`type`), the resource on it (`id`, checked against the
/// route's kind), the payload's schema version, and the `event_id` that tells a redelivery apart.
///
/// Built only from content that was decrypted and checked against the contract; the app
/// navigates on a route, never on the alert's text.
public struct Route: Sendable, Hashable {
    /// The route's name in the contract: the screen.
    public let type: String
    /// The resource id in its canonical text (lower-case for a UUID), or nil for a route
    /// without one.
    public let id: String?
    /// The payload's `schema_version`.
    public let schemaVersion: Int
    /// The payload's `event_id`.
    public let eventID: String

    /// A route; the contract checks its parts before making one.
    public init(type: String, id: String?, schemaVersion: Int, eventID: String) {
        self.type = type
        self.id = id
        self.schemaVersion = schemaVersion
        self.eventID = eventID
    }

    /// `{"type", "id"}` (with `schema_version` and `event_id`), as the CLI prints it.
    public var json: JSONObject {
        var object = JSONObject([("type", .string(type))])
        if let id { object["id"] = .string(id) }
        object["schema_version"] = .number(JSONNumber(schemaVersion))
        object["event_id"] = .string(eventID)
        return object
    }
}
