package import PushSealGatewayModel

extension DeliveryState {
    /// The columns a delivery's state is read from.
    package enum Column: Int, StoredColumns {
        case deviceID, status, apnsID, reason, attempts, rowID, receiptID, displayOutcome, displayReason, displayAt

        package var sql: String {
            switch self {
            case .deviceID: "device_id"
            case .status: "status"
            case .apnsID: "apns_id"
            case .reason: "reason"
            case .attempts: "attempts"
            case .rowID: "id"
            case .receiptID: "receipt_id"
            case .displayOutcome: "display_outcome"
            case .displayReason: "display_reason"
            case .displayAt: "display_at"
            }
        }
    }

    /// A row of ``Column``'s list.
    package init(row values: [DatabaseValue]) {
        let row = StoredRow<Column>(values)
        self.init(
            rowID: row[.rowID].integer ?? 0, deviceID: row[.deviceID].text ?? "",
            status: row[.status].text.flatMap(DeliveryStatus.init(rawValue:)) ?? .queued, apnsID: row[.apnsID].text,
            reason: row[.reason].text, attempts: Int(row[.attempts].integer ?? 0), receiptID: row[.receiptID].text,
            display: row[.displayOutcome].text.map {
                DisplayRecord(outcome: $0, reason: row[.displayReason].text, at: row[.displayAt].integer ?? 0)
            })
    }
}
