package import PushSealGatewayModel

/// The pushes the backends send and the outbox of their deliveries: stored with the push,
/// leased by the workers of their kind, and ended with what APNs or the push service answered.
package protocol OutboxStore: Sendable {
    /// Stores a push of `app` and its deliveries (to devices of that app), unless a push of `app`
    /// with the same idempotency key exists: then nothing is stored, and the answer says whether
    /// that push's request (`requestHash`, see `RequestHash`) was the same. A push stored before
    /// hashes were kept counts as the same.
    func acceptPush(
        id: String, in app: AppID, idempotencyKey: String?, requestHash: [UInt8], at time: Int64,
        deliveries: [NewDelivery]
    ) throws -> PushAcceptance
    /// What a push of `app` with `idempotencyKey` would come to, when a push of `app` with that key
    /// is stored already: a repeat of it when its request (`requestHash`) was the same, else a
    /// conflict; nil when none is. A request whose key came before is answered without spending
    /// its deliveries, sealing or storing anything.
    func earlierPush(idempotencyKey: String, in app: AppID, requestHash: [UInt8]) throws -> PushAcceptance?
    /// The push `id` of `app`, up to `limit` of its deliveries' states after the delivery row
    /// `after` (0: from the first), and the counts of all of them by status; nil for another app's.
    func push(id: String, in app: AppID, after: Int64, limit: Int) throws -> PushRecord?

    /// Leases up to `limit` queued deliveries of `kind` that are due at `time` for
    /// `leaseMilliseconds`, app by app in the order of `apps`: the first app's due deliveries
    /// (oldest first), then the next app's while `limit` is not reached. A delivery whose lease
    /// ran out (its worker died) is due again. Each says whether its device's address was marked
    /// gone meanwhile, so that the worker needs no query of its own. Each kind is claimed apart,
    /// so that a slow push service never holds APNs deliveries, nor the reverse; and the callers
    /// turn `apps` round, so that one app's backlog never holds another's push. An app not in
    /// `apps` is not claimed.
    func claimDeliveries(
        _ kind: DeliveryKind, from apps: [AppID], limit: Int, at time: Int64, leaseMilliseconds: Int64,
        owner: String
    ) throws -> [OutboxDelivery]
    /// Extends to `until` the leases `owner` holds on deliveries still queued: a live worker keeps
    /// its batch while APNs answers slowly; a dead one stops renewing, and its batch is due again.
    func renewLeases(owner: String, until: Int64) throws

    /// Records how attempts ended, all in one transaction, and releases their leases. An
    /// `unregistered` outcome also marks the device when it still has the delivery's address,
    /// unless it registered again after APNs' timestamp (or after the delivery was accepted, when
    /// there is none). The webhook events `routing` asks for are queued in the same transaction
    /// (``OutboxFinish``).
    func finish(_ ended: [EndedAttempt], routing: WebhookRouting) throws

    /// Deletes up to `limit` of `app`'s deliveries that ended before `time` (never a queued one),
    /// in one short transaction; how many went.
    func deleteFinishedDeliveries(in app: AppID, endedBefore time: Int64, limit: Int) throws -> Int
    /// Deletes up to `limit` of `app`'s queued deliveries of `kind` due before `time`: those of an
    /// app (or of its Web Push) that no instance serves any more, which no worker will claim; how
    /// many went.
    func deleteAbandonedDeliveries(_ kind: DeliveryKind, in app: AppID, dueBefore time: Int64, limit: Int) throws
        -> Int
    /// Deletes up to `limit` of `app`'s pushes accepted before `time` that have no delivery left,
    /// and so their idempotency keys; how many went.
    func deleteEmptyPushes(in app: AppID, acceptedBefore time: Int64, limit: Int) throws -> Int
}

extension OutboxStore {
    /// The push `id` of `app` and every one of its deliveries' states.
    package func push(id: String, in app: AppID) throws -> PushRecord? {
        try push(id: id, in: app, after: 0, limit: Int(Int64.max))
    }

    /// Records how one attempt ended (``finish(_:routing:)``).
    package func finish(
        _ delivery: OutboxDelivery, _ outcome: DeliveryOutcome, attempts: Int, at time: Int64, routing: WebhookRouting
    ) throws {
        try finish(
            [EndedAttempt(delivery: delivery, outcome: outcome, attempts: attempts, time: time)], routing: routing)
    }
}

extension OutboxStore where Self: SQLExecutor {
    package func earlierPush(idempotencyKey: String, in app: AppID, requestHash: [UInt8]) throws -> PushAcceptance? {
        try read(
            "SELECT id, request_hash FROM pushes WHERE idempotency_key = \(placeholder(1)) AND app = \(placeholder(2))",
            [.text(idempotencyKey), .text(app.name)]
        ).first.map { PushAcceptance(earlier: $0, requestHash: requestHash) }
    }

    package func push(id: String, in app: AppID, after: Int64, limit: Int) throws -> PushRecord? {
        try readTransaction { sql in try PushRecord.read(id: id, in: app, after: after, limit: limit, sql) }
    }

    package func finish(_ ended: [EndedAttempt], routing: WebhookRouting) throws {
        try transaction { sql in
            for attempt in ended { try OutboxFinish.apply(attempt, routing: routing, sql) }
        }
    }

    package func renewLeases(owner: String, until: Int64) throws {
        try write(LeaseStatements.renew(dialect), [.integer(until), .text(owner)])
    }

    package func deleteFinishedDeliveries(in app: AppID, endedBefore time: Int64, limit: Int) throws -> Int {
        try write(
            RetentionStatements.deleteFinishedDeliveries(dialect),
            RetentionStatements.parameters(app, before: time, limit: limit)
        ).count
    }

    package func deleteAbandonedDeliveries(_ kind: DeliveryKind, in app: AppID, dueBefore time: Int64, limit: Int)
        throws -> Int
    {
        try write(
            RetentionStatements.deleteAbandonedDeliveries(dialect),
            RetentionStatements.parameters(app, before: time, limit: limit) + [.text(kind.rawValue)]
        ).count
    }

    package func deleteEmptyPushes(in app: AppID, acceptedBefore time: Int64, limit: Int) throws -> Int {
        try write(
            RetentionStatements.deleteEmptyPushes(dialect),
            RetentionStatements.parameters(app, before: time, limit: limit)
        ).count
    }
}
