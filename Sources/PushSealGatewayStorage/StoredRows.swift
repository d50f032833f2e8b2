internal import PushSealCore
package import PushSealGatewayModel

// The records as both stores read and write them: the same columns in the same order, decoded in
// one place, so that SQLite and PostgreSQL cannot drift apart.

extension AccessTokenRecord {
    /// The columns a token is read from.
    package enum Column: Int, StoredColumns {
        case id, secretHash, scopes, createdAt, revokedAt, label, expiresAt, lastUsedAt

        package var sql: String {
            switch self {
            case .id: "id"
            case .secretHash: "secret_hash"
            case .scopes: "scopes"
            case .createdAt: "created_at"
            case .revokedAt: "revoked_at"
            case .label: "label"
            case .expiresAt: "expires_at"
            case .lastUsedAt: "last_used_at"
            }
        }
    }

    /// The query that reads tokens, to be followed by a `WHERE` or `ORDER BY` clause.
    package static let selectColumns = "SELECT \(Column.list) FROM access_tokens"

    /// A row of ``selectColumns``.
    package init(row values: [DatabaseValue]) {
        let row = StoredRow<Column>(values)
        self.init(
            id: row[.id].text ?? "", secretHash: row[.secretHash].blob ?? [],
            scopes: Set(
                (row[.scopes].text ?? "").split(separator: " ").compactMap { AccessScope(rawValue: String($0)) }),
            createdAt: row[.createdAt].integer ?? 0, revokedAt: row[.revokedAt].integer, label: row[.label].text,
            expiresAt: row[.expiresAt].integer, lastUsedAt: row[.lastUsedAt].integer)
    }

    /// The statement that stores a new token, for either store, with its parameters.
    package func insert(placeholder: (Int) -> String) -> (String, [DatabaseValue]) {
        (
            "INSERT INTO access_tokens (id, secret_hash, scopes, created_at, label, expires_at) VALUES ("
                + (1...6).map(placeholder).joined(separator: ", ") + ")",
            [
                .text(id), .blob(secretHash), .text(scopesText), .integer(createdAt), label.map { .text($0) } ?? .null,
                expiresAt.map { .integer($0) } ?? .null,
            ]
        )
    }

    /// The scopes as stored: their names, sorted, separated by spaces.
    package var scopesText: String { scopes.sorted().map(\.rawValue).joined(separator: " ") }
}

extension Device {
    /// The columns a device is read from.
    package enum Column: Int, StoredColumns {
        case id, userID, kind, token, topic, environment, publicKey, endpoint, p256dh, auth, registeredAt
        case unregisteredAt

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
            }
        }
    }

    /// The query that reads devices, to be followed by a `WHERE` clause.
    package static let selectColumns = "SELECT \(Column.list) FROM devices"

    /// A row of ``selectColumns``; nil when its kind or environment is unknown.
    package init?(row values: [DatabaseValue]) {
        let row = StoredRow<Column>(values)
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
            id: row[.id].text ?? "", user: row[.userID].text ?? "", channel: channel,
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
            WHERE device_id = \(placeholder(2)) AND removed_at IS NULL AND EXISTS (
                SELECT 1 FROM devices AS d WHERE d.id = \(placeholder(2)) AND (d.user_id <> \(placeholder(3))
                    OR COALESCE(d.token, '') <> \(placeholder(4)) OR d.unregistered_at IS NOT NULL))
            """
        return (statement, [.integer(registeredAt), .text(id), .text(user), .text(token)])
    }

    /// The statement that registers or updates the device, for either store (`placeholder(n)`
    /// writes the n-th parameter's marker), with its parameters. Registering again replaces the
    /// channel whole (a device may move from APNs to Web Push), sets the registration time and
    /// clears the `unregistered` mark.
    package func upsert(placeholder: (Int) -> String) -> (String, [DatabaseValue]) {
        let markers = (1...11).map(placeholder).joined(separator: ", ")
        let statement = """
            INSERT INTO devices (id, user_id, kind, token, topic, environment, public_key, endpoint, p256dh, auth,
                registered_at, unregistered_at)
            VALUES (\(markers), NULL)
            ON CONFLICT (id) DO UPDATE SET user_id = excluded.user_id, kind = excluded.kind, token = excluded.token,
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
        return (statement, values + [.integer(registeredAt)])
    }
}

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

extension PushRecord {
    /// Push `id` with up to `limit` of its deliveries after row `after`, and the counts of all of
    /// them by status; nil when there is no such push. Runs in `sql`'s transaction.
    package static func read(id: String, after: Int64, limit: Int, _ sql: StatementRunner) throws -> PushRecord? {
        let p = sql.placeholder
        guard let accepted = try sql("SELECT accepted_at FROM pushes WHERE id = \(p(1))", [.text(id)]).first else {
            return nil
        }
        let deliveries = try sql(
            "SELECT \(DeliveryState.Column.list) FROM deliveries WHERE push_id = \(p(1)) "
                + "AND id > \(p(2)) ORDER BY id LIMIT \(p(3))",
            [.text(id), .integer(after), .integer(Int64(limit))]
        ).map(DeliveryState.init(row:))
        var counts: [DeliveryStatus: Int] = [:]
        for row in try sql(
            "SELECT status, count(*) FROM deliveries WHERE push_id = \(p(1)) GROUP BY status", [.text(id)])
        {
            if let status = row[0].text.flatMap(DeliveryStatus.init(rawValue:)) {
                counts[status] = Int(row[1].integer ?? 0)
            }
        }
        return PushRecord(id: id, acceptedAt: accepted[0].integer ?? 0, deliveries: deliveries, counts: counts)
    }
}

extension OutboxDelivery {
    /// The columns a claim returns, of the table aliased `d`, and whether the device is marked
    /// gone for this address.
    package enum Column: Int, StoredColumns {
        case id, pushID, deviceID, kind, address, environment, headers, body, expiration, attempts, acceptedAt
        case addressIsGone

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
                "EXISTS (SELECT 1 FROM devices WHERE devices.id = d.device_id AND devices.unregistered_at IS NOT NULL "
                    + "AND (devices.token = d.address OR devices.endpoint = d.address))"
            }
        }
    }

    /// ``Column``'s list, for a claim's `RETURNING` or `SELECT`.
    package static let claimedColumns = Column.list

    /// A row of ``claimedColumns``; nil for an unknown kind, or an APNs delivery of an unknown
    /// environment.
    package init?(row values: [DatabaseValue]) {
        let row = StoredRow<Column>(values)
        guard let kind = row[.kind].text.flatMap(DeliveryKind.init(rawValue:)) else { return nil }
        let environment = row[.environment].text.flatMap(APNsEnvironment.init(rawValue:))
        if kind == .apns && environment == nil { return nil }
        self.init(
            id: row[.id].integer ?? 0, pushID: row[.pushID].text ?? "", deviceID: row[.deviceID].text ?? "",
            kind: kind, address: row[.address].text ?? "", environment: environment,
            headers: OutboxHeaders.parse(row[.headers].text ?? ""), body: row[.body].blob ?? [],
            expiration: row[.expiration].integer, attempts: Int(row[.attempts].integer ?? 0),
            acceptedAt: row[.acceptedAt].integer ?? 0, addressIsGone: row[.addressIsGone].integer == 1)
    }
}

extension NewDelivery {
    /// The statement that queues a delivery in SQLite, its parameters ``insertParameters(pushID:at:)``'s.
    /// One text for every delivery: built once, it is found among the connection's prepared
    /// statements without being built again.
    package static let sqliteInsert = """
        INSERT INTO deliveries (push_id, device_id, kind, address, environment, headers, body, expiration,
            next_attempt_at, accepted_at, status)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9, 'queued')
        """

    /// The parameters of ``sqliteInsert`` that queue this delivery of push `pushID`, accepted at `time`.
    package func insertParameters(pushID: String, at time: Int64) -> [DatabaseValue] {
        let environment: DatabaseValue =
            if case .apns(_, _, let environment, _) = device.channel { .text(environment.rawValue) } else { .null }
        return [
            .text(pushID), .text(device.id), .text(device.channel.kind.rawValue), .text(device.channel.address),
            environment, .text(OutboxHeaders.text(headers)), .blob(body), expiration.map { .integer($0) } ?? .null,
            .integer(time),
        ]
    }
}

/// A delivery's headers as stored: a JSON array of `[name, value]` pairs.
package enum OutboxHeaders {
    /// The stored text of `headers`.
    package static func text(_ headers: [(name: String, value: String)]) -> String {
        JSONWriter.string(.array(headers.map { .array([.string($0.name), .string($0.value)]) }))
    }

    /// The headers of stored `text`.
    package static func parse(_ text: String) -> [(name: String, value: String)] {
        guard case .array(let pairs)? = try? JSONParser.parse(text) else { return [] }
        return pairs.compactMap { pair in
            guard case .array(let parts) = pair, parts.count == 2, let name = parts[0].stringValue,
                let value = parts[1].stringValue
            else { return nil }
            return (name, value)
        }
    }
}

extension DeviceQuery {
    /// This query in SQL, for either store (`placeholder(n)`), and its parameters; at most
    /// `limit` rows.
    package func statement(limit: Int, placeholder: (Int) -> String) -> (String, [DatabaseValue]) {
        var conditions: [String] = []
        var values: [DatabaseValue] = []
        func next(_ value: DatabaseValue) -> String {
            values.append(value)
            return placeholder(values.count)
        }
        switch state {
        case .active?: conditions.append("unregistered_at IS NULL")
        case .unregistered?: conditions.append("unregistered_at IS NOT NULL")
        case nil: break
        }
        if let user { conditions.append("user_id = \(next(.text(user)))") }
        if let since { conditions.append("unregistered_at >= \(next(.integer(since)))") }
        if let afterID {
            if let time = afterUnregisteredAt {
                let marked = next(.integer(time))
                let id = next(.text(afterID))
                conditions.append("(unregistered_at > \(marked) OR (unregistered_at = \(marked) AND id > \(id)))")
            } else {
                conditions.append("id > \(next(.text(afterID)))")
            }
        }
        let order = state == .unregistered ? "unregistered_at, id" : "id"
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        return ("\(Device.selectColumns)\(filter) ORDER BY \(order) LIMIT \(next(.integer(Int64(limit))))", values)
    }
}

extension PushAcceptance {
    /// What an earlier push's row (`id, request_hash`) with the same key means for a request
    /// hashed `requestHash`: a repeat, or a conflict (a row without a hash is from before hashes
    /// were kept, and counts as a repeat).
    package init(earlier row: [DatabaseValue], requestHash: [UInt8]) {
        let id = row[0].text ?? ""
        guard let stored = row[1].blob, !stored.isEmpty else {
            self = .repeated(id)
            return
        }
        self = stored == requestHash ? .repeated(id) : .conflict(id)
    }
}

/// The statement that keeps a worker's leases: every delivery still queued under `owner`
/// (parameter 2) gets a new `lease_until` and `next_attempt_at` (parameter 1). Both stores find those rows through their
/// partial index on `lease_owner` of queued deliveries, so that its cost follows the worker's
/// leases and not the outbox's size: it runs every third of a lease for each worker, on the writer.
package enum LeaseStatements {
    /// The renewal, with `placeholder(n)` as the n-th marker: the lease's new end, which is also
    /// its deliveries' next attempt (a claim keeps them out of the due ones until it lapses).
    package static func renew(placeholder: (Int) -> String) -> String {
        "UPDATE deliveries SET lease_until = \(placeholder(1)), next_attempt_at = \(placeholder(1)) "
            + "WHERE lease_owner = \(placeholder(2)) AND status = 'queued'"
    }
}

/// The retention sweep's statements, for either store: parameters the cutoff time and the batch's
/// size (`placeholder(n)` writes the n-th marker); `locking` follows the batch's selection
/// (PostgreSQL's `FOR UPDATE SKIP LOCKED`, so that instances sweeping at once take different rows
/// and none waits; nothing for SQLite, which has one writer).
package enum RetentionStatements {
    /// Deletes a batch of deliveries that ended before the cutoff, never a queued one.
    package static func deleteFinishedDeliveries(locking: String, placeholder: (Int) -> String) -> String {
        "DELETE FROM deliveries WHERE id IN (SELECT id FROM deliveries WHERE status <> 'queued' "
            + "AND finished_at < \(placeholder(1)) ORDER BY finished_at LIMIT \(placeholder(2))\(locking)) RETURNING id"
    }

    /// Deletes a batch of pushes accepted before the cutoff that have no delivery left.
    package static func deleteEmptyPushes(locking: String, placeholder: (Int) -> String) -> String {
        "DELETE FROM pushes WHERE id IN (SELECT p.id FROM pushes AS p WHERE p.accepted_at < \(placeholder(1)) "
            + "AND NOT EXISTS (SELECT 1 FROM deliveries AS d WHERE d.push_id = p.id) "
            + "ORDER BY p.accepted_at LIMIT \(placeholder(2))\(locking)) RETURNING id"
    }
}

extension InstanceRecord {
    /// The columns an instance is read from.
    package enum Column: Int, StoredColumns {
        case id, version, startedAt, heartbeatAt

        package var sql: String {
            switch self {
            case .id: "id"
            case .version: "version"
            case .startedAt: "started_at"
            case .heartbeatAt: "heartbeat_at"
            }
        }
    }

    /// The query that reads instances, to be followed by an `ORDER BY`.
    package static let selectColumns = "SELECT \(Column.list) FROM instances"

    /// A row of ``selectColumns``.
    package init(row values: [DatabaseValue]) {
        let row = StoredRow<Column>(values)
        self.init(
            id: row[.id].text ?? "", version: row[.version].text ?? "", startedAt: row[.startedAt].integer ?? 0,
            heartbeatAt: row[.heartbeatAt].integer ?? 0)
    }

    /// The statement that records this heartbeat, for either store, with its parameters.
    package func upsert(placeholder: (Int) -> String) -> (String, [DatabaseValue]) {
        (
            "INSERT INTO instances (id, version, started_at, heartbeat_at) VALUES (\(placeholder(1)), "
                + "\(placeholder(2)), \(placeholder(3)), \(placeholder(4))) ON CONFLICT (id) DO UPDATE SET "
                + "version = excluded.version, heartbeat_at = excluded.heartbeat_at",
            [.text(id), .text(version), .integer(startedAt), .integer(heartbeatAt)]
        )
    }
}

extension OutcomeCount {
    /// The query of outcomes since the time in parameter `since` (`?1` or `$1`).
    package static func query(_ since: String) -> String {
        "SELECT status, reason, count(*) FROM deliveries WHERE status <> 'queued' AND finished_at >= \(since) "
            + "GROUP BY status, reason ORDER BY count(*) DESC, status, reason"
    }

    /// A row of ``query(_:)``; nil for an unknown status.
    package init?(row: [DatabaseValue]) {
        guard let status = row[0].text.flatMap(DeliveryStatus.init(rawValue:)) else { return nil }
        self.init(status: status, reason: row[1].text, count: Int(row[2].integer ?? 0))
    }
}

extension RetryingCount {
    /// The query of the reasons queued deliveries wait for, at most as many as parameter `limit`
    /// (`?1` or `$1`) says. A delivery tried but not yet answered keeps the reason of the attempt
    /// before; one never tried has none, and is not counted.
    package static func query(_ limit: String) -> String {
        "SELECT reason, count(*), min(next_attempt_at) FROM deliveries WHERE status = 'queued' AND reason IS NOT NULL "
            + "GROUP BY reason ORDER BY count(*) DESC, reason LIMIT \(limit)"
    }

    /// A row of ``query(_:)``.
    package init(row: [DatabaseValue]) {
        self.init(reason: row[0].text ?? "", count: Int(row[1].integer ?? 0), nextAttemptAt: row[2].integer ?? 0)
    }
}

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

/// The relay's endpoints, for either store.
package enum InboxStatements {
    /// Removes the endpoint with parameter 2 as its hash at parameter 1's time, returning it
    /// when it was not removed already.
    package static func remove(placeholder: (Int) -> String) -> String {
        "UPDATE webpush_inboxes SET removed_at = \(placeholder(1)) WHERE id_hash = \(placeholder(2)) "
            + "AND removed_at IS NULL RETURNING id_hash"
    }
}
