package import PushSealGatewayModel

extension OutboxDelivery {
    /// The columns a claim returns, of the table aliased `d`, and whether the device is marked
    /// gone for this address.
    package enum Column: Int, StoredColumns {
        case id, pushID, deviceID, kind, address, environment, headers, body, expiration, attempts, acceptedAt
        case addressIsGone, app, user

        package var sql: String {
            switch self {
            case .id: "d.id"
            case .pushID: "d.push_id"
            case .deviceID: "d.device_id"
            case .kind: "d.kind"
            case .address: "d.address"
            case .environment: "d.environment"
            case .headers: "d.headers"
            case .body: "d.body"
            case .expiration: "d.expiration"
            case .attempts: "d.attempts"
            case .acceptedAt: "d.accepted_at"
            case .addressIsGone:
                "EXISTS (SELECT 1 FROM devices WHERE devices.id = d.device_id AND devices.app = d.app "
                    + "AND devices.unregistered_at IS NOT NULL AND (devices.token = d.address OR devices.endpoint = d.address))"
            case .app: "d.app"
            // Looked up for Web Push deliveries alone: an APNs claim pays nothing for it.
            case .user:
                "CASE WHEN d.kind = 'webpush' THEN "
                    + "(SELECT user_id FROM devices WHERE devices.id = d.device_id AND devices.app = d.app) END"
            }
        }
    }

    /// ``Column``'s list, for a claim's `RETURNING` or `SELECT`.
    package static let claimedColumns = Column.list

    /// A row of ``claimedColumns``; nil for an unknown app or kind, or an APNs delivery of an
    /// unknown environment.
    package init?(row values: [DatabaseValue]) {
        let row = StoredRow<Column>(values)
        guard let kind = row[.kind].text.flatMap(DeliveryKind.init(rawValue:)),
            let app = row[.app].text.flatMap(AppID.init)
        else { return nil }
        let environment = row[.environment].text.flatMap(APNsEnvironment.init(rawValue:))
        if kind == .apns && environment == nil { return nil }
        self.init(
            id: row[.id].integer ?? 0, app: app, pushID: row[.pushID].text ?? "", deviceID: row[.deviceID].text ?? "",
            kind: kind, address: row[.address].text ?? "", environment: environment,
            headers: OutboxHeaders.parse(row[.headers].text ?? ""), body: row[.body].blob ?? [],
            expiration: row[.expiration].integer, attempts: Int(row[.attempts].integer ?? 0),
            acceptedAt: row[.acceptedAt].integer ?? 0, addressIsGone: row[.addressIsGone].integer == 1,
            user: row[.user].text)
    }
}
