package import PushSealGatewayModel

extension NewDelivery {
    /// The statement that queues a delivery in SQLite, its parameters ``insertParameters(pushID:at:)``'s.
    /// One text for every delivery: built once, it is found among the connection's prepared
    /// statements without being built again.
    package static let sqliteInsert = """
        INSERT INTO deliveries (push_id, device_id, kind, address, environment, headers, body, expiration,
            next_attempt_at, accepted_at, status, app, receipt_id, display_hash, failure_hash)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9, 'queued', ?10, ?11, ?12, ?13)
        """

    /// The parameters of ``sqliteInsert`` that queue this delivery of push `pushID`, accepted at `time`.
    package func insertParameters(pushID: String, at time: Int64) -> [DatabaseValue] {
        let environment: DatabaseValue =
            if case .apns(_, _, let environment, _) = device.channel { .text(environment.rawValue) } else { .null }
        return [
            .text(pushID), .text(device.id), .text(device.channel.kind.rawValue), .text(device.channel.address),
            environment, .text(OutboxHeaders.text(headers)), .blob(body), expiration.map { .integer($0) } ?? .null,
            .integer(time), .text(device.app.name),
        ] + receiptParameters
    }

    /// The receipt's columns (`receipt_id`, `display_hash`, `failure_hash`): nulls for a delivery
    /// that carries none.
    package var receiptParameters: [DatabaseValue] {
        guard let receipt else { return [.null, .null, .null] }
        return [.text(receipt.deliveryID), .blob(receipt.displayHash), .blob(receipt.failureHash)]
    }
}
