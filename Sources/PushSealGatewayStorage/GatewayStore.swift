package import PushSealGatewayModel

/// Where the gateway keeps its state: access tokens, devices, pushes and the outbox. The API and
/// the delivery workers see only this protocol, so that another database (PostgreSQL) can take
/// SQLite's place without touching them. Every method is one transaction.
package protocol GatewayStore: Sendable {
    /// Creates or upgrades the schema to this version of the gateway; what it found and did.
    @discardableResult
    func migrate() throws -> SchemaChange

    /// True when the database answers a query.
    func isReachable() -> Bool

    /// Stores a new access token (its secret only as a hash).
    func addAccessToken(_ token: AccessTokenRecord) throws
    /// The token with `id`, revoked or not.
    func accessToken(id: String) throws -> AccessTokenRecord?
    /// Every token, oldest first.
    func accessTokens() throws -> [AccessTokenRecord]
    /// Revokes the token with `id`; false when there is none.
    func revokeAccessToken(id: String, at time: Int64) throws -> Bool
    /// Records that the token with `id` was presented at `time`.
    func touchAccessToken(id: String, at time: Int64) throws

    /// Registers or updates a device (its channel replaced whole); true when it was new.
    /// Registering again clears an `unregistered` mark and sets the registration time.
    func putDevice(_ device: Device) throws -> Bool
    /// The device with `id`.
    func device(id: String) throws -> Device?
    /// Removes the device; false when there was none. Its queued deliveries are not sent: they end
    /// `unregistered` (reason `DeviceDeleted`), with the events `routing` asks for.
    func deleteDevice(id: String, routing: WebhookRouting) throws -> Bool
    /// The devices of `user`, by id.
    func devices(user: String) throws -> [Device]
    /// Up to `limit` devices of `query` (its state, time and cursor), in its order.
    func devices(_ query: DeviceQuery, limit: Int) throws -> [Device]

    /// Stores a push and its deliveries, unless a push with the same idempotency key exists: then
    /// nothing is stored, and the answer says whether that push's request (`requestHash`, see
    /// ``RequestHash``) was the same. A push stored before hashes were kept counts as the same.
    func acceptPush(
        id: String, idempotencyKey: String?, requestHash: [UInt8], at time: Int64, deliveries: [NewDelivery]
    ) throws -> PushAcceptance
    /// A push, up to `limit` of its deliveries' states after the delivery row `after` (0: from the
    /// first), and the counts of all of them by status.
    func push(id: String, after: Int64, limit: Int) throws -> PushRecord?

    /// Leases up to `limit` queued deliveries of `kind` that are due at `time` for
    /// `leaseMilliseconds`; a delivery whose lease ran out (its worker died) is due again. Each
    /// says whether its device's address was marked gone meanwhile, so that the worker needs no
    /// query of its own. Each kind is claimed apart, so that a slow push service never holds
    /// APNs deliveries, nor the reverse.
    func claimDeliveries(
        _ kind: DeliveryKind, limit: Int, at time: Int64, leaseMilliseconds: Int64, owner: String
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

    /// Ends the events of `endpoint` whose retry window closed before `expireBefore`, then leases
    /// up to `limit` of its queued events unless it is disabled or waiting (``WebhookOutbox``).
    func claimWebhookEvents(
        endpoint: String, limit: Int, at time: Int64, expireBefore: Int64, leaseMilliseconds: Int64, owner: String
    ) throws -> WebhookClaim
    /// Records one request to `endpoint` carrying the events `sent`, and releases `unsent`; the
    /// endpoint's state after it (``WebhookOutbox/record(_:endpoint:sent:unsent:at:disableBefore:_:)``).
    func recordWebhookAttempt(
        _ attempt: WebhookAttempt, endpoint: String, sent: [Int64], unsent: [Int64], at time: Int64,
        disableBefore: Int64
    ) throws -> WebhookEndpointState
    /// Enables a disabled endpoint again; false when it was not disabled.
    func enableWebhookEndpoint(_ endpoint: String) throws -> Bool
    /// Deletes up to `limit` webhook events that ended before `time`, and queued ones left by an
    /// endpoint no longer configured (``WebhookOutbox/longestRetryMilliseconds`` older); how many
    /// went.
    func deleteFinishedWebhookEvents(endedBefore time: Int64, limit: Int) throws -> Int

    /// Stores a new Web Push endpoint of the relay.
    func addInbox(_ inbox: WebPushInbox) throws
    /// The endpoint whose id hashes to `idHash`, and its device when it still exists.
    func inbox(idHash: String) throws -> (WebPushInbox, Device?)?
    /// Removes the endpoint (it answers 410 from then on); false when there is none, or it was
    /// removed already.
    func removeInbox(idHash: String, at time: Int64) throws -> Bool

    /// Counts for the metrics: deliveries by status, the oldest queued one, devices registered and
    /// unregistered.
    func statistics() throws -> GatewayStatistics
    /// The store's counters of its own work, for the metrics (SQLite: its one writer's).
    var metrics: [StoreMetric] { get }

    /// Deletes up to `limit` deliveries that ended before `time` (never a queued one), in one
    /// short transaction; how many went.
    func deleteFinishedDeliveries(endedBefore time: Int64, limit: Int) throws -> Int
    /// Deletes up to `limit` pushes accepted before `time` that have no delivery left, and so
    /// their idempotency keys; how many went.
    func deleteEmptyPushes(acceptedBefore time: Int64, limit: Int) throws -> Int

    /// Records that `instance` is alive, and forgets instances silent since `forgetBefore`.
    func heartbeat(_ instance: InstanceRecord, forgetBefore: Int64) throws
    /// The instances heard from, newest heartbeat first.
    func instances() throws -> [InstanceRecord]
    /// Removes instance `id` from the list: it stopped cleanly, and will say nothing more.
    func forgetInstance(id: String) throws
    /// How deliveries that ended since `time` ended, by status and reason.
    func outcomes(since time: Int64) throws -> [OutcomeCount]
    /// The reasons queued deliveries wait to be tried again for, most frequent first, at most
    /// `limit` of them (read through the index of queued rows: its cost grows with the queue).
    func retrying(limit: Int) throws -> [RetryingCount]
}

extension GatewayStore {
    /// A push and every one of its deliveries' states.
    package func push(id: String) throws -> PushRecord? { try push(id: id, after: 0, limit: Int(Int64.max)) }

    /// Records how one attempt ended (``finish(_:routing:)``).
    package func finish(
        _ delivery: OutboxDelivery, _ outcome: DeliveryOutcome, attempts: Int, at time: Int64, routing: WebhookRouting
    ) throws {
        try finish(
            [EndedAttempt(delivery: delivery, outcome: outcome, attempts: attempts, time: time)], routing: routing)
    }
}
