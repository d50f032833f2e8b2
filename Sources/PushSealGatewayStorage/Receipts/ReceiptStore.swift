internal import PushSealCore
package import PushSealGatewayModel
internal import PushSealPrimitives

/// The receipts devices post of their deliveries (gateway-v1.md, "Receipts"): each checked
/// against the hashes of the delivery's two capabilities, and what it reports kept on the
/// delivery's row.
package protocol ReceiptStore: Sendable {
    /// Records `reports`, in order and in one transaction, as received at `time`: each is refused
    /// when no delivery has its id, or when its capability is neither of the delivery's (compared
    /// in constant time), or is the failure capability and it reports `displayed`. A taken receipt
    /// sets the delivery's display when it has none, or when it has a degraded one and the receipt
    /// reports `displayed`; otherwise it changes nothing. Each display it sets queues the
    /// `delivery.displayed` or `delivery.degraded` event `routing` asks for, in the same
    /// transaction.
    func recordReceipts(_ reports: [ReceiptReport], at time: Int64, routing: WebhookRouting) throws
        -> [ReceiptRecording]
}

extension ReceiptStore where Self: SQLExecutor {
    package func recordReceipts(_ reports: [ReceiptReport], at time: Int64, routing: WebhookRouting) throws
        -> [ReceiptRecording]
    {
        guard !reports.isEmpty else { return [] }
        let ids = Array(Set(reports.map(\.deliveryID))).sorted()
        return try transaction { sql in
            var found = try ReceiptRow.lock(ids, sql)
            var recordings: [ReceiptRecording] = []
            var events: [WebhookEvent] = []
            for report in reports {
                guard let row = found[report.deliveryID] else {
                    recordings.append(.refused)
                    continue
                }
                let isDisplay = ConstantTime.equals(report.capabilityHash, row.displayHash)
                let isFailure = ConstantTime.equals(report.capabilityHash, row.failureHash)
                guard isDisplay || (isFailure && report.outcome != .displayed) else {
                    recordings.append(.refused)
                    continue
                }
                let sets = row.outcome == nil || (row.outcome == "degraded" && report.outcome == .displayed)
                if sets {
                    try ReceiptRow.setDisplay(report, at: time, sql)
                    found[report.deliveryID]?.outcome = report.outcome.name
                    let type: WebhookEventType = report.outcome == .displayed ? .deliveryDisplayed : .deliveryDegraded
                    if !routing.endpoints(for: type, in: row.delivery.app).isEmpty {
                        events.append(
                            .display(
                                id: WebhookOutbox.newEventID(), row.delivery,
                                user: try ReceiptRow.user(of: row.delivery, sql), outcome: report.outcome, at: time))
                    }
                }
                recordings.append(.taken(changed: sets, delivery: row.delivery))
            }
            try WebhookOutbox.queue(events, routing: routing, sql)
            return recordings
        }
    }
}

/// A delivery's row as a receipt reads it: the hashes of its capabilities, the display it has,
/// and what its event says of it.
private struct ReceiptRow {
    let displayHash: [UInt8]
    let failureHash: [UInt8]
    var outcome: String?
    let delivery: ReceiptedDelivery

    /// The rows of the deliveries `ids` name, by id, locked in the order of their rows, as a
    /// recording of outcomes locks them, so that the two never wait on each other in turn.
    static func lock(_ ids: [String], _ sql: StatementRunner) throws -> [String: ReceiptRow] {
        let rows = try sql(
            "SELECT receipt_id, display_hash, failure_hash, display_outcome, app, kind, push_id, device_id, status, "
                + "attempts, apns_id, accepted_at, finished_at FROM deliveries WHERE receipt_id IN ("
                + sql.markers(ids.count) + ") ORDER BY id\(sql.dialect.forUpdate)",
            ids.map { .text($0) })
        var found: [String: ReceiptRow] = [:]
        for row in rows {
            guard let id = row[0].text, let app = row[4].text.flatMap(AppID.init),
                let kind = row[5].text.flatMap(DeliveryKind.init(rawValue:)),
                let status = row[8].text.flatMap(DeliveryStatus.init(rawValue:))
            else { continue }
            found[id] = ReceiptRow(
                displayHash: row[1].blob ?? [], failureHash: row[2].blob ?? [], outcome: row[3].text,
                delivery: ReceiptedDelivery(
                    receiptID: id, app: app, pushID: row[6].text ?? "", deviceID: row[7].text ?? "", kind: kind,
                    status: status, attempts: Int(row[9].integer ?? 0), apnsID: row[10].text,
                    acceptedAt: row[11].integer ?? 0, finishedAt: row[12].integer))
        }
        return found
    }

    /// Sets the display of `report`'s delivery to what it reports, received at `time`.
    static func setDisplay(_ report: ReceiptReport, at time: Int64, _ sql: StatementRunner) throws {
        let p = sql.placeholder
        try sql(
            "UPDATE deliveries SET display_outcome = \(p(1)), display_reason = \(p(2)), display_at = \(p(3)) "
                + "WHERE receipt_id = \(p(4))",
            [
                .text(report.outcome.name), report.outcome.reason.map { .text($0.rawValue) } ?? .null,
                .integer(time), .text(report.deliveryID),
            ])
    }

    /// The user of `delivery`'s device; nil once the device is gone.
    static func user(of delivery: ReceiptedDelivery, _ sql: StatementRunner) throws -> String? {
        try sql(
            "SELECT user_id FROM devices WHERE id = \(sql.placeholder(1)) AND app = \(sql.placeholder(2))",
            [.text(delivery.deviceID), .text(delivery.app.name)]
        ).first?[0].text
    }
}
