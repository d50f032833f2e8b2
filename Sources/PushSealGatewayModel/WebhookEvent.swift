package import PushSealCore

/// One event, as every endpoint subscribed to its type receives it: a Standard Webhooks message
/// body `{"id", "type", "timestamp", "data"}`, where `id` is also the `webhook-id` of a message
/// that carries this event alone, and `data` begins with the event's `app`. Ids, statuses,
/// reasons and times only; never content.
package struct WebhookEvent: Sendable, Equatable {
    /// `msg_` and 32 random hex digits (the store makes it, with the transaction that queues the
    /// event); the same for every endpoint, and for every retry.
    package let id: String
    /// The app it happened in: its endpoints alone hear of it.
    package let app: AppID
    /// What happened.
    package let type: WebhookEventType
    /// The JSON object sent, compact.
    package let body: String
    /// When it happened, milliseconds since the epoch.
    package let createdAt: Int64

    private init(id: String, app: AppID, type: WebhookEventType, data: [(String, JSONValue)], at time: Int64) {
        self.id = id
        self.app = app
        self.type = type
        self.createdAt = time
        body = JSONWriter.string(
            .object(
                JSONObject([
                    ("id", .string(id)), ("type", .string(type.rawValue)),
                    ("timestamp", .string(RFC3339.text(time))),
                    ("data", .object(JSONObject([("app", .string(app.name))] + data))),
                ])))
    }

    /// The end of a delivery: `data` holds `push`, `device`, `user`, `kind`, `status`, `reason`,
    /// `attempts`, `apns_id` (APNs, once sent), `accepted_at` and `finished_at` (milliseconds).
    /// Nil for an outcome that is not an end (a retry).
    package static func delivery(
        id: String, _ delivery: OutboxDelivery, user: String?, outcome: DeliveryOutcome, attempts: Int,
        at time: Int64
    ) -> WebhookEvent? {
        let (status, reason) = outcome.statusAndReason
        let apnsID: String? = if case .sent(let apnsID) = outcome { apnsID } else { nil }
        guard let type = WebhookEventType(endOf: status) else { return nil }
        var data: [(String, JSONValue)] = [
            ("push", .string(delivery.pushID)), ("device", .string(delivery.deviceID)),
            ("user", user.map(JSONValue.string) ?? .null), ("kind", .string(delivery.kind.rawValue)),
            ("status", .string(status.rawValue)),
            ("reason", status == .queued ? .null : reason.map { .string($0.text) } ?? .null),
            ("attempts", .number(JSONNumber(attempts))),
        ]
        if delivery.kind == .apns { data.append(("apns_id", apnsID.map(JSONValue.string) ?? .null)) }
        data += [
            ("accepted_at", .number(JSONNumber(Int(delivery.acceptedAt)))),
            ("finished_at", .number(JSONNumber(Int(time)))),
        ]
        return WebhookEvent(id: id, app: delivery.app, type: type, data: data, at: time)
    }

    /// A device's deliveries ended because the backend deleted it: `delivery.unregistered` with
    /// reason `DeviceDeleted`, as `GET /v1/pushes/{id}` shows them.
    package static func deviceDeleted(
        id: String, app: AppID, push: String, device: String, user: String?, kind: DeliveryKind, attempts: Int,
        acceptedAt: Int64,
        at time: Int64
    ) -> WebhookEvent {
        WebhookEvent(
            id: id, app: app, type: .deliveryUnregistered,
            data: [
                ("push", .string(push)), ("device", .string(device)), ("user", user.map(JSONValue.string) ?? .null),
                ("kind", .string(kind.rawValue)), ("status", .string(DeliveryStatus.unregistered.rawValue)),
                ("reason", .string(GatewayReason.deviceDeleted.rawValue)), ("attempts", .number(JSONNumber(attempts))),
                ("accepted_at", .number(JSONNumber(Int(acceptedAt)))), ("finished_at", .number(JSONNumber(Int(time)))),
            ], at: time)
    }

    /// What a receipt said the device showed of `delivery`: `delivery.displayed` or
    /// `delivery.degraded`, whose `data` holds the members of the delivery's end (its `status`,
    /// `attempts`, `apns_id`, `accepted_at`, `finished_at`: null while it is queued), with
    /// `reason` the receipt's (null for displayed), and `delivery` (the id receipts name it by),
    /// `outcome` and `reported_at`.
    package static func display(
        id: String, _ delivery: ReceiptedDelivery, user: String?, outcome: ReceiptOutcome, at time: Int64
    ) -> WebhookEvent {
        var data: [(String, JSONValue)] = [
            ("push", .string(delivery.pushID)), ("device", .string(delivery.deviceID)),
            ("user", user.map(JSONValue.string) ?? .null), ("kind", .string(delivery.kind.rawValue)),
            ("status", .string(delivery.status.rawValue)),
            ("reason", outcome.reason.map { .string($0.rawValue) } ?? .null),
            ("attempts", .number(JSONNumber(delivery.attempts))),
        ]
        if delivery.kind == .apns { data.append(("apns_id", delivery.apnsID.map(JSONValue.string) ?? .null)) }
        data += [
            ("accepted_at", .number(JSONNumber(Int(delivery.acceptedAt)))),
            ("finished_at", delivery.finishedAt.map { .number(JSONNumber(Int($0))) } ?? .null),
            ("delivery", .string(delivery.receiptID)), ("outcome", .string(outcome.name)),
            ("reported_at", .number(JSONNumber(Int(time)))),
        ]
        return WebhookEvent(
            id: id, app: delivery.app, type: outcome == .displayed ? .deliveryDisplayed : .deliveryDegraded,
            data: data, at: time)
    }

    /// A device marked `unregistered`: `data` holds `device`, `user`, `kind`, the `reason` of the
    /// answer that marked it, the `push` whose delivery got that answer, and `unregistered_at`.
    package static func deviceUnregistered(
        id: String, app: AppID, device: String, user: String, kind: DeliveryKind, reason: String, push: String,
        at time: Int64
    ) -> WebhookEvent {
        WebhookEvent(
            id: id, app: app, type: .deviceUnregistered,
            data: [
                ("device", .string(device)), ("user", .string(user)), ("kind", .string(kind.rawValue)),
                ("reason", .string(reason)), ("push", .string(push)),
                ("unregistered_at", .number(JSONNumber(Int(time)))),
            ], at: time)
    }
}
