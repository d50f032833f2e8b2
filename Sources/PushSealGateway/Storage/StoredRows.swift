internal import PushSealCore

// The records as both stores read and write them: the same columns in the same order, decoded in
// one place, so that SQLite and PostgreSQL cannot drift apart.

extension AccessTokenRecord {
    /// `id, secret_hash, scopes, created_at, revoked_at`.
    init(row: [DatabaseValue]) {
        self.init(
            id: row[0].text ?? "", secretHash: row[1].blob ?? [],
            scopes: Set((row[2].text ?? "").split(separator: " ").compactMap { AccessScope(rawValue: String($0)) }),
            createdAt: row[3].integer ?? 0, revokedAt: row[4].integer)
    }

    /// The scopes as stored: their names, sorted, separated by spaces.
    var scopesText: String { scopes.sorted().map(\.rawValue).joined(separator: " ") }
}

extension Device {
    /// The query that reads devices, to be followed by a `WHERE` clause.
    static let selectColumns =
        "SELECT id, user_id, token, topic, environment, public_key, registered_at, unregistered_at FROM devices"

    /// A row of ``selectColumns``; nil when its environment is unknown.
    init?(row: [DatabaseValue]) {
        guard let environment = row[4].text.flatMap(APNsEnvironment.init(rawValue:)) else { return nil }
        self.init(
            id: row[0].text ?? "", user: row[1].text ?? "", token: row[2].text ?? "", topic: row[3].text ?? "",
            environment: environment, publicKeyJWK: row[5].text ?? "", registeredAt: row[6].integer ?? 0,
            unregisteredAt: row[7].integer)
    }
}

extension DeliveryState {
    /// `device_id, status, apns_id, reason, attempts`.
    init(row: [DatabaseValue]) {
        self.init(
            deviceID: row[0].text ?? "", status: row[1].text.flatMap(DeliveryStatus.init(rawValue:)) ?? .queued,
            apnsID: row[2].text, reason: row[3].text, attempts: Int(row[4].integer ?? 0))
    }
}

extension OutboxDelivery {
    /// `id, push_id, device_id, token, environment, headers, body, expiration, attempts,
    /// accepted_at`, and whether the device's token is marked gone; nil for an unknown environment.
    init?(row: [DatabaseValue]) {
        guard let environment = row[4].text.flatMap(APNsEnvironment.init(rawValue:)) else { return nil }
        self.init(
            id: row[0].integer ?? 0, pushID: row[1].text ?? "", deviceID: row[2].text ?? "",
            token: row[3].text ?? "", environment: environment, headers: OutboxHeaders.parse(row[5].text ?? ""),
            body: row[6].blob ?? [], expiration: row[7].integer, attempts: Int(row[8].integer ?? 0),
            acceptedAt: row[9].integer ?? 0, tokenIsGone: row[10].integer == 1)
    }
}

/// A delivery's APNs headers as stored: a JSON array of `[name, value]` pairs.
enum OutboxHeaders {
    /// The stored text of `headers`.
    static func text(_ headers: [(name: String, value: String)]) -> String {
        JSONWriter.string(.array(headers.map { .array([.string($0.name), .string($0.value)]) }))
    }

    /// The headers of stored `text`.
    static func parse(_ text: String) -> [(name: String, value: String)] {
        guard case .array(let pairs)? = try? JSONParser.parse(text) else { return [] }
        return pairs.compactMap { pair in
            guard case .array(let parts) = pair, parts.count == 2, let name = parts[0].stringValue,
                let value = parts[1].stringValue
            else { return nil }
            return (name, value)
        }
    }
}

/// The statements that record how a delivery's attempt ended, for either store.
enum OutboxFinish {
    /// The statements, in order, with their parameters; `placeholder(n)` writes the n-th
    /// parameter's marker (`?n` for SQLite, `$n` for PostgreSQL).
    static func statements(
        _ delivery: OutboxDelivery, _ outcome: DeliveryOutcome, attempts: Int, at time: Int64,
        placeholder: (Int) -> String
    ) -> [(String, [DatabaseValue])] {
        let (p1, p2, p3, p4, p5) = (placeholder(1), placeholder(2), placeholder(3), placeholder(4), placeholder(5))
        let id = DatabaseValue.integer(delivery.id)
        let count = DatabaseValue.integer(Int64(attempts))
        func ended(_ status: DeliveryStatus, _ reason: String) -> (String, [DatabaseValue]) {
            (
                "UPDATE deliveries SET status = \(p1), reason = \(p2), attempts = \(p3), finished_at = \(p4), "
                    + "lease_owner = NULL, lease_until = NULL WHERE id = \(p5)",
                [.text(status.rawValue), .text(reason), count, .integer(time), id]
            )
        }
        switch outcome {
        case .sent(let apnsID):
            return [
                (
                    "UPDATE deliveries SET status = 'sent', apns_id = \(p1), reason = NULL, attempts = \(p2), "
                        + "finished_at = \(p3), lease_owner = NULL, lease_until = NULL WHERE id = \(p4)",
                    [apnsID.map { .text($0) } ?? .null, count, .integer(time), id]
                )
            ]
        case .failed(let reason): return [ended(.failed, reason)]
        case .expired: return [ended(.expired, "Expired")]
        case .retry(let due, let reason):
            return [
                (
                    "UPDATE deliveries SET reason = \(p1), attempts = \(p2), next_attempt_at = \(p3), "
                        + "lease_owner = NULL, lease_until = NULL WHERE id = \(p4)",
                    [.text(reason), count, .integer(due), id]
                )
            ]
        case .unregistered(let reason, let timestamp):
            // A device that registered after APNs' timestamp (or after this push) keeps its token.
            return [
                ended(.unregistered, reason),
                (
                    "UPDATE devices SET unregistered_at = \(p1) WHERE id = \(p2) AND token = \(p3) "
                        + "AND registered_at <= \(p4)",
                    [
                        .integer(time), .text(delivery.deviceID), .text(delivery.token),
                        .integer(timestamp ?? delivery.acceptedAt),
                    ]
                ),
            ]
        }
    }
}
