internal import PushSealDelivery

/// RFC 8030's headers for a push's Web Push deliveries (gateway-v1.md, "Web Push delivery"), from
/// the push's APNs options: what the outbox stores, and the `TTL` computed as a delivery leaves.
enum WebPushHeaders {
    /// The stored headers: `urgency` `high` for priority 10 and `low` for 5 (APNs' "as the
    /// device's power allows"; none, the default `normal`, without a priority), and `topic`, the
    /// collapse id when it is one RFC 8030 allows (1 to 32 base64url characters; none otherwise).
    static func stored(priority: Int?, collapseID: String?) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        switch priority {
        case 10?: headers.append(("urgency", WebPushUrgency.high.rawValue))
        case 5?: headers.append(("urgency", WebPushUrgency.low.rawValue))
        default: break
        }
        if let collapseID, WebPushJob.isValidTopic(collapseID) { headers.append(("topic", collapseID)) }
        return headers
    }

    /// The `TTL`, in seconds, of a delivery leaving at `now` (UNIX seconds): the time left until
    /// the push's `expiration` (0 once it passed, and 0 for an expiration of 0, APNs' "now or
    /// never"), and the most push services keep, 28 days, for a push without one.
    static func ttl(expiration: Int64?, now: Int64) -> Int {
        guard let expiration else { return WebPushJob.maximumTTL }
        guard expiration > 0 else { return 0 }
        return Int(min(max(expiration - now, 0), Int64(WebPushJob.maximumTTL)))
    }

    /// The stored `urgency` of `headers`, if any.
    static func urgency(_ headers: [(name: String, value: String)]) -> WebPushUrgency? {
        headers.first { $0.name == "urgency" }.flatMap { WebPushUrgency(rawValue: $0.value) }
    }

    /// The stored `topic` of `headers`, if any.
    static func topic(_ headers: [(name: String, value: String)]) -> String? {
        headers.first { $0.name == "topic" }?.value
    }
}
