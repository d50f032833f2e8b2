public import PushSealCore

/// A payload checked against the contract and completed, ready to seal.
public struct ContractedPayload: Sendable {
    /// The payload to seal: with `event_id` added when asked, and `aps.thread-id` filled from
    /// the route's template when the payload had none.
    public let payload: JSONObject
    /// Where the push leads, as the device will read it.
    public let route: Route
    /// The route's `apns-collapse-id`, filled in; nil when the route has no template.
    public let collapseID: String?
}

extension PayloadContract {
    /// The server side of the contract: refuses, before sealing, a payload whose `type` is not a
    /// route, whose `id` is not of the route's kind, that lacks `event_id` (unless
    /// `addingEventID`: ``completingEventID(_:)``), whose `schema_version` is not supported, or
    /// that carries a link the contract does not allow by name, or whose `media` is not a
    /// media-v1 descriptor; fills `thread-id` and the
    /// collapse id from the route's templates.
    /// - Throws: `PushSealError.Code.invalidPayload` whose message names the JSON path and the
    ///   contract's code (`unknown-type`, `bad-id`, …).
    public func prepareForSealing(_ payload: JSONObject, addingEventID: Bool = false) throws -> ContractedPayload {
        var payload = payload
        if addingEventID { payload = Self.completingEventID(payload) }
        let route: Route
        do {
            route = try self.route(for: payload)
        } catch {
            throw PushSealError(.invalidPayload, "\(error)")
        }
        if let violation = linkViolation(in: payload, route: route) {
            throw PushSealError(.invalidPayload, "\(violation)")
        }
        // Typed, not searched for links: it must be a media-v1 descriptor, URL rule included.
        if let media = payload["media"] { _ = try MediaDescriptor.inPayload(media) }
        let definition = routes[ExactText(route.type)]
        if let template = definition?.threadIDTemplate, var aps = payload["aps"]?.objectValue, aps["thread-id"] == nil {
            aps["thread-id"] = .string(definition?.fill(template, for: route) ?? template)
            payload["aps"] = .object(aps)
        }
        let collapseID = definition?.collapseIDTemplate.map { definition?.fill($0, for: route) ?? $0 }
        return ContractedPayload(payload: payload, route: route, collapseID: collapseID)
    }

    /// `--event-id auto`: `payload` with `event_id` set to a random UUID (lower case) when the
    /// member is absent or `null`, the way many serializers write "none"; any other value is kept,
    /// and checked as it is.
    public static func completingEventID(_ payload: JSONObject) -> JSONObject {
        guard payload["event_id"] == nil || payload["event_id"] == .null else { return payload }
        var completed = payload
        completed["event_id"] = .string(RandomUUID.make())
        return completed
    }
}
