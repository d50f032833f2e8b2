internal import PushSealCore
internal import PushSealGatewayModel
internal import PushSealPrimitives

/// What one request to an endpoint carries: an event alone, as Standard Webhooks has it (its
/// `webhook-id` the event's id), or, for an endpoint with a batch size above 1, every event in
/// order under `{"id", "type": "batch", "data": {"events": [...]}}`, whose `webhook-id` is
/// `msg_batch_` and a hash of the events' ids: the same set sent again keeps its id. A receiver
/// of batches deduplicates on each event's own `id`.
enum WebhookMessage {
    /// The type of a batch message.
    static let batchType = "batch"

    /// The `webhook-id` and the body of a message with `events` (one, unless `batched`).
    static func compose(_ events: [QueuedWebhookEvent], batched: Bool) -> (id: String, body: [UInt8]) {
        guard batched else { return (events.first?.eventID ?? "", Array((events.first?.body ?? "{}").utf8)) }
        let digest = SHA256.hash(Array(events.map(\.eventID).joined(separator: ",").utf8))
        let id = "msg_batch_" + HexDigits.lowercase(digest.prefix(16))
        // Each event's body is JSON this gateway wrote; it goes in as it is.
        let body =
            #"{"id":"\#(id)","type":"\#(batchType)","data":{"events":["#
            + events.map(\.body).joined(separator: ",") + "]}}"
        return (id, Array(body.utf8))
    }
}
