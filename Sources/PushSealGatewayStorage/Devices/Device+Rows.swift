package import PushSealGatewayModel

extension Device {
    /// The columns a device is read from.
    package enum Column: Int, StoredColumns {
        case id, userID, kind, token, topic, environment, publicKey, endpoint, p256dh, auth, registeredAt
        case unregisteredAt, app

        package var sql: String {
            switch self {
            case .id: "id"
            case .userID: "user_id"
            case .kind: "kind"
            case .token: "token"
            case .topic: "topic"
            case .environment: "environment"
            case .publicKey: "public_key"
            case .endpoint: "endpoint"
            case .p256dh: "p256dh"
            case .auth: "auth"
            case .registeredAt: "registered_at"
            case .unregisteredAt: "unregistered_at"
            case .app: "app"
            }
        }
    }

    /// The query that reads devices, to be followed by a `WHERE` clause.
    package static let selectColumns = "SELECT \(Column.list) FROM devices"

    /// A row of ``selectColumns``; nil when its app, kind or environment is not one this version
    /// knows.
    package init?(row values: [DatabaseValue]) {
        let row = StoredRow<Column>(values)
        guard let app = row[.app].text.flatMap(AppID.init) else { return nil }
        let channel: DeviceChannel
        switch row[.kind].text.flatMap(DeliveryKind.init(rawValue:)) {
        case .apns?:
            guard let environment = row[.environment].text.flatMap(APNsEnvironment.init(rawValue:)) else {
                return nil
            }
            channel = .apns(
                token: row[.token].text ?? "", topic: row[.topic].text ?? "", environment: environment,
                publicKeyJWK: row[.publicKey].text ?? "")
        case .webPush?:
            channel = .webPush(
                endpoint: row[.endpoint].text ?? "", p256dh: row[.p256dh].text ?? "", auth: row[.auth].text ?? "")
        case nil: return nil
        }
        self.init(
            app: app, id: row[.id].text ?? "", user: row[.userID].text ?? "", channel: channel,
            registeredAt: row[.registeredAt].integer ?? 0, unregisteredAt: row[.unregisteredAt].integer)
    }

    /// The statement that ends the relay endpoints of the device's registration in the store when
    /// registering this one replaces it with another (gateway-v1.md, "Web Push in"): another user,
    /// another token (or no longer an APNs device), or a registration APNs had said was gone. An
    /// endpoint belongs to the registration it was made for, not to the device id: registering
    /// the same user and token again (as apps do at each launch) keeps it. Run before
    /// ``upsert(placeholder:)``, in its transaction.
    package func endingReplacedInboxes(placeholder: (Int) -> String) -> (String, [DatabaseValue]) {
        let token: String
        if case .apns(let apnsToken, _, _, _) = channel { token = apnsToken } else { token = "" }
        let statement = """
            UPDATE webpush_inboxes SET removed_at = \(placeholder(1))
            WHERE device_id = \(placeholder(2)) AND app = \(placeholder(5)) AND removed_at IS NULL AND EXISTS (
                SELECT 1 FROM devices AS d WHERE d.id = \(placeholder(2)) AND d.app = \(placeholder(5))
                    AND (d.user_id <> \(placeholder(3)) OR COALESCE(d.token, '') <> \(placeholder(4))
                    OR d.unregistered_at IS NOT NULL))
            """
        return (statement, [.integer(registeredAt), .text(id), .text(user), .text(token), .text(app.name)])
    }

    /// The statement that registers or updates the device, for either store (`placeholder(n)`
    /// writes the n-th parameter's marker), with its parameters. Registering again replaces the
    /// channel whole (a device may move from APNs to Web Push), sets the registration time and
    /// clears the `unregistered` mark.
    package func upsert(placeholder: (Int) -> String) -> (String, [DatabaseValue]) {
        let markers = (1...12).map(placeholder).joined(separator: ", ")
        let statement = """
            INSERT INTO devices (id, user_id, kind, token, topic, environment, public_key, endpoint, p256dh, auth,
                registered_at, app, unregistered_at)
            VALUES (\(markers), NULL)
            ON CONFLICT (id, app) DO UPDATE SET user_id = excluded.user_id, kind = excluded.kind, token = excluded.token,
                topic = excluded.topic, environment = excluded.environment, public_key = excluded.public_key,
                endpoint = excluded.endpoint, p256dh = excluded.p256dh, auth = excluded.auth,
                registered_at = excluded.registered_at, unregistered_at = NULL
            """
        var values: [DatabaseValue] = [.text(id), .text(user), .text(channel.kind.rawValue)]
        switch channel {
        case .apns(let token, let topic, let environment, let jwk):
            values += [.text(token), .text(topic), .text(environment.rawValue), .text(jwk), .null, .null, .null]
        case .webPush(let endpoint, let p256dh, let auth):
            values += [.null, .null, .null, .null, .text(endpoint), .text(p256dh), .text(auth)]
        }
        return (statement, values + [.integer(registeredAt), .text(app.name)])
    }
}
