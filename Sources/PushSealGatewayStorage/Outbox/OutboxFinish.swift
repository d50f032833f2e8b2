package import PushSealGatewayModel

/// The statements that record how a delivery's attempt ended, for either store, and the webhook
/// events of that end, written in the same transaction. A delivery that ends loses its sealed
/// body at once; its record stays for the retention time.
package enum OutboxFinish {

    /// Whether `ended` was sent and its end queues no webhook event, so that recording it is its
    /// row's update alone, which a store may share with the others of a burst.
    package static func isPlainSend(_ ended: EndedAttempt, routing: WebhookRouting) -> Bool {
        guard case .sent = ended.outcome else { return false }
        return routing.endpoints(for: .deliverySent).isEmpty
    }

    /// Records that `ended`'s attempt ended with its outcome after its requests, at its time, and
    /// queues the events `routing` asks for: the delivery's end, and `device.unregistered` when
    /// this answer is the one that marked its device.
    package static func apply(_ ended: EndedAttempt, routing: WebhookRouting, _ sql: StatementRunner) throws {
        let (delivery, outcome, attempts, time) = (ended.delivery, ended.outcome, ended.attempts, ended.time)
        let placeholder = sql.placeholder
        let (p1, p2, p3, p4, p5) = (placeholder(1), placeholder(2), placeholder(3), placeholder(4), placeholder(5))
        let p6 = placeholder(6)
        let id = DatabaseValue.integer(delivery.id)
        let count = DatabaseValue.integer(Int64(attempts))
        // A delivery that ended keeps the record of what happened, never its sealed body.
        let noBody = DatabaseValue.blob([])
        func end(_ status: DeliveryStatus, _ reason: DeliveryReason) throws {
            try sql(
                "UPDATE deliveries SET status = \(p1), reason = \(p2), attempts = \(p3), finished_at = \(p4), "
                    + "body = \(p6), lease_owner = NULL, lease_until = NULL WHERE id = \(p5)",
                [.text(status.rawValue), .text(reason.text), count, .integer(time), id, noBody])
        }
        var events: [WebhookEvent] = []
        switch outcome {
        case .sent(let apnsID):
            try sql(
                "UPDATE deliveries SET status = 'sent', apns_id = \(p1), reason = NULL, attempts = \(p2), "
                    + "finished_at = \(p3), body = \(p5), lease_owner = NULL, lease_until = NULL WHERE id = \(p4)",
                [apnsID.map { .text($0) } ?? .null, count, .integer(time), id, noBody])
        case .failed(let reason): try end(.failed, reason)
        case .expired: try end(.expired, .gateway(.expired))
        case .retry(let due, let reason):
            try sql(
                "UPDATE deliveries SET reason = \(p1), attempts = \(p2), next_attempt_at = \(p3), "
                    + "lease_owner = NULL, lease_until = NULL WHERE id = \(p4)",
                [.text(reason.text), count, .integer(due), id])
            return
        case .unregistered(let reason, let timestamp):
            try end(.unregistered, reason)
            // A device that registered after APNs' timestamp (or after this push) keeps its
            // address; one marked already keeps the time it was first marked.
            let marked = try sql(
                "UPDATE devices SET unregistered_at = \(p1) WHERE id = \(p2) AND unregistered_at IS NULL "
                    + "AND (token = \(p3) OR endpoint = \(p3)) AND registered_at <= \(p4) RETURNING user_id",
                [
                    .integer(time), .text(delivery.deviceID), .text(delivery.address),
                    .integer(timestamp ?? delivery.acceptedAt),
                ])
            if let user = marked.first?[0].text {
                // Its relay endpoints end with the registration, and stay ended if it registers again.
                try sql(
                    "UPDATE webpush_inboxes SET removed_at = \(p1) WHERE device_id = \(p2) AND removed_at IS NULL",
                    [.integer(time), .text(delivery.deviceID)])
                events.append(
                    .deviceUnregistered(
                        device: delivery.deviceID, user: user, kind: delivery.kind, reason: reason.text,
                        push: delivery.pushID, at: time))
            }
        }
        if let type = WebhookEventType(endOf: outcome.statusAndReason.status), !routing.endpoints(for: type).isEmpty {
            let user = try sql("SELECT user_id FROM devices WHERE id = \(p1)", [.text(delivery.deviceID)]).first?[0]
                .text
            if let event = WebhookEvent.delivery(delivery, user: user, outcome: outcome, attempts: attempts, at: time) {
                events.insert(event, at: 0)
            }
        }
        try WebhookOutbox.queue(events, routing: routing, sql)
    }

    /// The columns of a deleted device's queued delivery that its event tells.
    package enum EndedColumn: Int, StoredColumns {
        case pushID, kind, attempts, acceptedAt

        package var sql: String {
            switch self {
            case .pushID: "push_id"
            case .kind: "kind"
            case .attempts: "attempts"
            case .acceptedAt: "accepted_at"
            }
        }
    }

    /// Deletes the device `id` and ends its queued deliveries (`unregistered`, reason
    /// ``GatewayReason/deviceDeleted``), queueing their events as `routing` asks; false when there was no
    /// such device.
    package static func deleteDevice(id: String, at time: Int64, routing: WebhookRouting, _ sql: StatementRunner) throws
        -> Bool
    {
        let p1 = sql.placeholder(1)
        guard let user = try sql("DELETE FROM devices WHERE id = \(p1) RETURNING user_id", [.text(id)]).first?[0].text
        else { return false }
        var events: [WebhookEvent] = []
        if !routing.endpoints(for: .deliveryUnregistered).isEmpty {
            for row in try sql(
                "SELECT \(EndedColumn.list) FROM deliveries WHERE device_id = \(p1) AND status = 'queued' ORDER BY id",
                [.text(id)]
            ).map(StoredRow<EndedColumn>.init) {
                guard let kind = row[.kind].text.flatMap(DeliveryKind.init(rawValue:)) else { continue }
                events.append(
                    .deviceDeleted(
                        push: row[.pushID].text ?? "", device: id, user: user, kind: kind,
                        attempts: Int(row[.attempts].integer ?? 0), acceptedAt: row[.acceptedAt].integer ?? 0,
                        at: time))
            }
        }
        try sql(
            "UPDATE deliveries SET status = 'unregistered', reason = \(sql.placeholder(2)), "
                + "finished_at = \(sql.placeholder(3)), body = \(sql.placeholder(4)), lease_owner = NULL, "
                + "lease_until = NULL WHERE device_id = \(p1) AND status = 'queued'",
            [.text(id), .text(GatewayReason.deviceDeleted.rawValue), .integer(time), .blob([])])
        try WebhookOutbox.queue(events, routing: routing, sql)
        try sql(
            "UPDATE webpush_inboxes SET removed_at = \(sql.placeholder(1)) WHERE device_id = \(sql.placeholder(2)) "
                + "AND removed_at IS NULL", [.integer(time), .text(id)])
        return true
    }
}
