package import PushSealGatewayModel
internal import PushSealPrimitives

/// The content kept for devices to fetch (``FetchObject``): stored before the push that refers
/// to it, served to its capability alone, and deleted once expired (a fetch shortens its life
/// to ``FetchObject/fetchedGrace``), at its fifth wrong capability, past its app's retention, or
/// when its device has ``FetchObject/perDeviceLimit`` newer ones of its source.
package protocol FetchObjectStore: Sendable {
    /// Stores `object`, and deletes its device's objects of its source beyond the
    /// ``FetchObject/perDeviceLimit`` newest, in one transaction; how many it deleted.
    @discardableResult
    func addFetchObject(_ object: FetchObject) throws -> Int
    /// The body of object `id` when it is still served at `time` and `capabilityHash` is its
    /// capability's (compared in constant time): a first fetch shortens its life to
    /// ``FetchObject/fetchedGrace``. Nil otherwise, alike whatever the reason; a wrong capability
    /// counts, and the ``FetchObject/refusalLimit``-th ends the object.
    func fetchObjectBody(id: String, capabilityHash: [UInt8], at time: Int64) throws -> [UInt8]?
    /// Deletes up to `limit` of `app`'s objects that expired before `time`; how many went.
    func deleteExpiredFetchObjects(in app: AppID, before time: Int64, limit: Int) throws -> Int
    /// Deletes up to `limit` of `app`'s objects stored before `time` (past its retention, which
    /// may have shrunk since they were stored), whatever their expiry; how many went.
    func deleteFetchObjects(in app: AppID, storedBefore time: Int64, limit: Int) throws -> Int
}

extension FetchObjectStore where Self: SQLExecutor {
    @discardableResult
    package func addFetchObject(_ object: FetchObject) throws -> Int {
        let p = placeholder
        return try transaction { sql in
            try sql(
                "INSERT INTO fetch_objects (id, app, device_id, source, capability_hash, body, created_at, expires_at) "
                    + "VALUES (" + (1...8).map(p).joined(separator: ", ") + ")",
                [
                    .text(object.id), .text(object.app.name), .text(object.deviceID), .text(object.source),
                    .blob(object.capabilityHash), .blob(object.body), .integer(object.createdAt),
                    .integer(object.expiresAt),
                ])
            return try sql(
                FetchObjectStatements.deleteBeyondNewest(dialect),
                [
                    .text(object.app.name), .text(object.deviceID), .integer(Int64(FetchObject.perDeviceLimit)),
                    .text(object.source),
                ]
            ).count
        }
    }

    package func fetchObjectBody(id: String, capabilityHash: [UInt8], at time: Int64) throws -> [UInt8]? {
        let p = placeholder
        return try transaction { sql in
            guard
                let row = try sql(
                    "SELECT capability_hash, body, expires_at, refusals FROM fetch_objects WHERE id = \(p(1)) "
                        + "AND expires_at > \(p(2))\(dialect.forUpdate)", [.text(id), .integer(time)]
                ).first
            else { return nil }
            guard ConstantTime.equals(row[0].blob ?? [], capabilityHash) else {
                let refusals = (row[3].integer ?? 0) + 1
                try sql(
                    "UPDATE fetch_objects SET refusals = \(p(1)), expires_at = \(p(2)) WHERE id = \(p(3))",
                    [
                        .integer(refusals),
                        .integer(refusals >= FetchObject.refusalLimit ? 0 : row[2].integer ?? 0), .text(id),
                    ])
                return nil
            }
            let expiresAt = min(row[2].integer ?? 0, time + FetchObject.fetchedGrace)
            try sql(
                "UPDATE fetch_objects SET fetched_at = COALESCE(fetched_at, \(p(1))), expires_at = \(p(2)) "
                    + "WHERE id = \(p(3))", [.integer(time), .integer(expiresAt), .text(id)])
            return row[1].blob
        }
    }

    package func deleteExpiredFetchObjects(in app: AppID, before time: Int64, limit: Int) throws -> Int {
        try write(
            RetentionStatements.deleteExpiredFetchObjects(dialect),
            RetentionStatements.parameters(app, before: time, limit: limit)
        ).count
    }

    package func deleteFetchObjects(in app: AppID, storedBefore time: Int64, limit: Int) throws -> Int {
        try write(
            RetentionStatements.deleteOldFetchObjects(dialect),
            RetentionStatements.parameters(app, before: time, limit: limit)
        ).count
    }
}
