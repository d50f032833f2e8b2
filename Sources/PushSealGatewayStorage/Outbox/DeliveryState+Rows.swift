package import PushSealGatewayModel

extension DeliveryState {
    /// The columns a delivery's state is read from.
    package enum Column: Int, StoredColumns {
        case deviceID, status, apnsID, reason, attempts, rowID

        package var sql: String {
            switch self {
            case .deviceID: "device_id"
            case .status: "status"
            case .apnsID: "apns_id"
            case .reason: "reason"
            case .attempts: "attempts"
            case .rowID: "id"
            }
        }
    }

    /// A row of ``Column``'s list.
    package init(row values: [DatabaseValue]) {
        let row = StoredRow<Column>(values)
        self.init(
            rowID: row[.rowID].integer ?? 0, deviceID: row[.deviceID].text ?? "",
            status: row[.status].text.flatMap(DeliveryStatus.init(rawValue:)) ?? .queued, apnsID: row[.apnsID].text,
            reason: row[.reason].text, attempts: Int(row[.attempts].integer ?? 0))
    }
}
