package import PushSealGatewayModel

/// The statements that apply an `OutboxTransition` for either store, and
/// queue the webhook events of that end in the same transaction.
package enum OutboxFinish {
    /// Records that `ended`'s attempt ended (`OutboxTransition`), and
    /// queues the events `routing` asks for: the delivery's end, and `device.unregistered` when
    /// this answer is the one that marked its device.
    package static func apply(_ ended: EndedAttempt, routing: WebhookRouting, _ sql: StatementRunner) throws {
        let transition = OutboxTransition(ended)
        let p = sql.placeholder
        let (id, attempts) = (
            DatabaseValue.integer(transition.deliveryID), DatabaseValue.integer(Int64(ended.attempts))
        )
        switch transition.change {
        case .end(let status, let reason, let apnsID):
            try sql(
                "UPDATE deliveries SET status = \(p(1)), reason = \(p(2)), apns_id = \(p(3)), attempts = \(p(4)), "
                    + "finished_at = \(p(5)), body = \(p(6)), lease_owner = NULL, lease_until = NULL WHERE id = \(p(7))",
                [
                    .text(status.rawValue), reason.map { .text($0.text) } ?? .null, apnsID.map { .text($0) } ?? .null,
                    attempts, .integer(transition.time), .blob([]), id,
                ])
        case .retry(let due, let reason):
            try sql(
                "UPDATE deliveries SET reason = \(p(1)), attempts = \(p(2)), next_attempt_at = \(p(3)), "
                    + "lease_owner = NULL, lease_until = NULL WHERE id = \(p(4))",
                [.text(reason.text), attempts, .integer(due), id])
            return
        }
        var events: [WebhookEvent] = []
        if let gone = transition.goneAddress, let user = try markGone(gone, at: transition.time, sql) {
            events.append(
                .deviceUnregistered(
                    id: WebhookOutbox.newEventID(), app: gone.app, device: gone.deviceID, user: user,
                    kind: ended.delivery.kind,
                    reason: gone.reason.text,
                    push: ended.delivery.pushID, at: transition.time))
        }
        if let type = transition.endEvent, !routing.endpoints(for: type, in: ended.delivery.app).isEmpty {
            let user = try sql(
                "SELECT user_id FROM devices WHERE id = \(p(1)) AND app = \(p(2))",
                [.text(ended.delivery.deviceID), .text(ended.delivery.app.name)]
            ).first?[0].text
            if let event = WebhookEvent.delivery(
                id: WebhookOutbox.newEventID(), ended.delivery, user: user, outcome: ended.outcome,
                attempts: ended.attempts, at: transition.time)
            {
                events.insert(event, at: 0)
            }
        }
        try WebhookOutbox.queue(events, routing: routing, sql)
    }

    /// Marks `gone`'s device unregistered as `OutboxTransition.GoneAddress`
    /// says, ending its relay endpoints; its user when this answer marked it (one marked already
    /// keeps the time it was first marked).
    private static func markGone(_ gone: OutboxTransition.GoneAddress, at time: Int64, _ sql: StatementRunner) throws
        -> String?
    {
        let p = sql.placeholder
        let marked = try sql(
            "UPDATE devices SET unregistered_at = \(p(1)) WHERE id = \(p(2)) AND app = \(p(5)) "
                + "AND unregistered_at IS NULL AND (token = \(p(3)) OR endpoint = \(p(3))) AND registered_at <= \(p(4)) "
                + "RETURNING user_id",
            [
                .integer(time), .text(gone.deviceID), .text(gone.address), .integer(gone.registeredBy),
                .text(gone.app.name),
            ])
        guard let user = marked.first?[0].text else { return nil }
        try sql(
            "UPDATE webpush_inboxes SET removed_at = \(p(1)) WHERE device_id = \(p(2)) AND app = \(p(3)) "
                + "AND removed_at IS NULL", [.integer(time), .text(gone.deviceID), .text(gone.app.name)])
        return user
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

    /// Deletes the device `id` of `app` and ends its queued deliveries (`unregistered`, reason
    /// ``GatewayReason/deviceDeleted``), queueing their events as `routing` asks; false when there
    /// was no such device.
    package static func deleteDevice(
        id: String, in app: AppID, at time: Int64, routing: WebhookRouting, _ sql: StatementRunner
    ) throws -> Bool {
        let (p1, p2) = (sql.placeholder(1), sql.placeholder(2))
        let keys: [DatabaseValue] = [.text(id), .text(app.name)]
        // Its queued deliveries before the device, in the lock order a recording of outcomes
        // keeps (PostgresGatewayStore): a recording that marks this device gone holds its
        // deliveries, then asks for the device.
        let queued = try sql(DeviceDeletionStatements.queued(sql.dialect), keys).map(StoredRow<EndedColumn>.init)
        guard
            let user = try sql("DELETE FROM devices WHERE id = \(p1) AND app = \(p2) RETURNING user_id", keys)
                .first?[0].text
        else { return false }
        var events: [WebhookEvent] = []
        if !routing.endpoints(for: .deliveryUnregistered, in: app).isEmpty {
            for row in queued {
                guard let kind = row[.kind].text.flatMap(DeliveryKind.init(rawValue:)) else { continue }
                events.append(
                    .deviceDeleted(
                        id: WebhookOutbox.newEventID(), app: app, push: row[.pushID].text ?? "", device: id, user: user,
                        kind: kind,
                        attempts: Int(row[.attempts].integer ?? 0), acceptedAt: row[.acceptedAt].integer ?? 0,
                        at: time))
            }
        }
        try sql(
            DeviceDeletionStatements.end(sql.dialect),
            keys + [.text(GatewayReason.deviceDeleted.rawValue), .integer(time), .blob([])])
        try WebhookOutbox.queue(events, routing: routing, sql)
        try sql(
            "UPDATE webpush_inboxes SET removed_at = \(sql.placeholder(3)) WHERE device_id = \(p1) AND app = \(p2) "
                + "AND removed_at IS NULL", keys + [.integer(time)])
        try sql(DeviceDeletionStatements.fetchObjects(sql.dialect), keys)
        return true
    }
}
