internal import PushSealCore
internal import PushSealGatewayModel
internal import PushSealPrimitives

/// `GET /v1/pushes/{id}?limit=…&cursor=…` (gateway-v1.md, "Pushes"): a push's deliveries a page
/// at a time, in the order they were stored, with the counts of all of them by status, so that a
/// push to many users is read in pieces. The cursor is opaque to the client.
struct DeliveryPage: Sendable, Equatable {
    /// The most deliveries one page holds, and the default.
    static let maximumLimit = 5_000
    static let defaultLimit = 1_000

    /// The page's size.
    let limit: Int
    /// Where the page starts: after this delivery row (0: from the first).
    let after: Int64

    /// Reads and checks `query`.
    /// - Throws: ``APIError`` naming the query parameter at fault.
    init(query: [String: String]) throws(APIError) {
        let known = ["limit", "cursor"]
        try RequestReader.refuseUnknown(query: query, known)
        limit = try RequestReader.pageLimit(query, fallback: Self.defaultLimit, maximum: Self.maximumLimit)
        if let text = query["cursor"] {
            guard text.utf8.count <= 64, let bytes = Base64URL.decode(text),
                let decoded = String(validating: bytes, as: UTF8.self), decoded.hasPrefix("d."),
                let row = Int64(decoded.dropFirst(2)), row > 0
            else { throw .invalidQuery("cursor", "is not a cursor of this push: pass next_cursor as it came") }
            after = row
        } else {
            after = 0
        }
    }

    /// The answer for `push`, read with one delivery more than ``limit`` to know whether another
    /// page follows: `{"id", "accepted_at", "counts", "deliveries", "next_cursor"}`.
    func json(_ push: PushRecord) -> JSONValue {
        let page = Array(push.deliveries.prefix(limit))
        var object = JSONObject([
            ("id", .string(push.id)), ("accepted_at", .number(JSONNumber(Int(push.acceptedAt)))),
            (
                "counts",
                .object(
                    JSONObject(
                        [DeliveryStatus.queued, .sent, .failed, .unregistered, .expired].map {
                            ($0.rawValue, .number(JSONNumber(push.counts[$0] ?? 0)))
                        }))
            ),
            ("deliveries", .array(page.map(GatewayAPI.json))),
        ])
        if push.deliveries.count > limit, let last = page.last {
            object["next_cursor"] = .string(Base64URL.encode(Array("d.\(last.rowID)".utf8)))
        }
        return .object(object)
    }
}
