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
    /// reports `displayed`; otherwise it changes nothing.
    func recordReceipts(_ reports: [ReceiptReport], at time: Int64) throws -> [ReceiptRecording]
}

extension ReceiptStore where Self: SQLExecutor {
    package func recordReceipts(_ reports: [ReceiptReport], at time: Int64) throws -> [ReceiptRecording] {
        guard !reports.isEmpty else { return [] }
        let p = placeholder
        let ids = Array(Set(reports.map(\.deliveryID))).sorted()
        return try transaction { sql in
            // Locked in the order of their rows, as a recording of outcomes locks them, so that
            // the two never wait on each other in turn.
            let rows = try sql(
                "SELECT receipt_id, display_hash, failure_hash, display_outcome, app, kind FROM deliveries WHERE receipt_id IN ("
                    + (1...ids.count).map { p($0) }.joined(separator: ", ") + ") ORDER BY id\(dialect.forUpdate)",
                ids.map { .text($0) })
            var found:
                [String: (display: [UInt8], failure: [UInt8], outcome: String?, app: AppID, kind: DeliveryKind)] =
                    [:]
            for row in rows {
                guard let id = row[0].text, let app = row[4].text.flatMap(AppID.init),
                    let kind = row[5].text.flatMap(DeliveryKind.init(rawValue:))
                else { continue }
                found[id] = (row[1].blob ?? [], row[2].blob ?? [], row[3].text, app, kind)
            }
            var recordings: [ReceiptRecording] = []
            for report in reports {
                guard let delivery = found[report.deliveryID] else {
                    recordings.append(.refused)
                    continue
                }
                let isDisplay = ConstantTime.equals(report.capabilityHash, delivery.display)
                let isFailure = ConstantTime.equals(report.capabilityHash, delivery.failure)
                guard isDisplay || (isFailure && report.outcome != .displayed) else {
                    recordings.append(.refused)
                    continue
                }
                let sets = delivery.outcome == nil || (delivery.outcome == "degraded" && report.outcome == .displayed)
                if sets {
                    try sql(
                        "UPDATE deliveries SET display_outcome = \(p(1)), display_reason = \(p(2)), display_at = \(p(3)) "
                            + "WHERE receipt_id = \(p(4))",
                        [
                            .text(report.outcome.name), report.outcome.reason.map { .text($0.rawValue) } ?? .null,
                            .integer(time),
                            .text(report.deliveryID),
                        ])
                    found[report.deliveryID]?.outcome = report.outcome.name
                }
                recordings.append(.taken(changed: sets, app: delivery.app, kind: delivery.kind))
            }
            return recordings
        }
    }
}
