internal import PushSealCore
internal import PushSealGatewayModel
internal import PushSealGatewayStorage

/// Accepting a push, apart from how it came (`POST /v1/pushes`, or a device's test push): its
/// audience resolved to active devices, the deliveries counted against the cap and the token's
/// rate, sealed per device, and stored with the push in one transaction; then the workers of
/// their kinds are woken. Nothing is stored when any step fails, and the rate spent comes back. A
/// request whose idempotency key came before is answered from the earlier push before any of that:
/// a client that retries an accepted push at its rate limit gets the push's id, not 429.
final class PushAcceptor: Sendable {
    /// What accepting a push came to.
    struct Accepted: Sendable, Equatable {
        /// The push's id: a new one, or the earlier push's for a repeat.
        let id: String
        /// Its deliveries.
        let deliveries: Int
        /// True when the idempotency key and the request were the earlier push's: nothing new
        /// was stored.
        let repeated: Bool
        /// How many deliveries had their alert body shortened to fit (`truncate`).
        let truncated: Int
        /// How many deliveries carry a reference to content kept for their device to fetch.
        var fetched = 0
    }

    private let store: any GatewayStore
    private let sealer: PushSealer
    private let maximumDeliveriesPerPush: Int
    /// Where the app's pushes too large for APNs are fetched from; nil when they are refused.
    private let fetch: FetchSettings?
    /// Where the app's devices report what they showed; nil when its deliveries carry no receipts.
    private let receipts: ReceiptSettings?
    /// The app's retention, in hours: no content is kept to fetch for longer.
    private let retentionHours: Int
    private let limiter: RateLimiter
    private let metrics: Metrics
    private let log: EventLog
    private let onAccepted: @Sendable (Set<DeliveryKind>) -> Void

    /// An acceptor storing in `store`, sealing with `sealer`, refusing a push of more than
    /// `maximumDeliveriesPerPush` deliveries, spending them from `limiter`, keeping content too
    /// large for APNs to fetch as `fetch` says (for `retentionHours` at most), giving each delivery
    /// receipts as `receipts` says; `onAccepted` wakes the delivery workers of the kinds given.
    init(
        store: any GatewayStore, sealer: PushSealer, maximumDeliveriesPerPush: Int, fetch: FetchSettings? = nil,
        receipts: ReceiptSettings? = nil, retentionHours: Int = GatewayConfiguration.defaultRetentionHours,
        limiter: RateLimiter, metrics: Metrics, log: EventLog,
        onAccepted: @escaping @Sendable (Set<DeliveryKind>) -> Void
    ) {
        self.fetch = fetch
        self.receipts = receipts
        self.retentionHours = retentionHours
        self.store = store
        self.sealer = sealer
        self.maximumDeliveriesPerPush = maximumDeliveriesPerPush
        self.limiter = limiter
        self.metrics = metrics
        self.log = log
        self.onAccepted = onAccepted
    }

    /// Seals `push` (whose request body was `requestBody`, hashed for its idempotency key) for
    /// every active device of `app` it names and stores it, spending its deliveries from `token`'s rate
    /// before anything is sealed.
    /// - Throws: ``APIError``: too many deliveries, a rate limit, a content a device cannot take,
    ///   an idempotency key used by another request; or the store's error.
    func accept(_ push: PushRequest, in app: AppID, requestBody: JSONObject, token: String) throws -> Accepted {
        let (payload, collapseID) = try sealer.prepare(push)
        let receipts = try receiptSettings(for: push, payload: payload)
        // The request's hash is compared only when its idempotency key comes again.
        let requestHash = push.idempotencyKey == nil ? [] : RequestHash.of(requestBody)
        if let key = push.idempotencyKey,
            let earlier = try store.earlierPush(idempotencyKey: key, in: app, requestHash: requestHash)?.earlier
        {
            return try answer(to: push, in: app, from: earlier)
        }
        var devices: [Device] = []
        switch push.audience {
        case .users(let users):
            for user in users { devices += try store.devices(user: user, in: app) }
        case .devices(let ids):
            for id in ids { if let device = try store.device(id: id, in: app) { devices.append(device) } }
        }
        var seen: Set<String> = []
        let active = devices.filter { $0.unregisteredAt == nil && seen.insert($0.id).inserted }
        // Counted before anything is sealed: the cap bounds the work and memory of one request.
        guard active.count <= maximumDeliveriesPerPush else {
            throw APIError.tooManyDeliveries(active.count, limit: maximumDeliveriesPerPush)
        }
        try limiter.spend(active.count, of: .deliveries, token: token)
        let time = GatewayClock.milliseconds()
        var fetched = 0
        let keep = try keeper(for: push, at: time).map { keep in
            { (envelope: [UInt8], device: Device) throws -> FetchReference in
                fetched += 1
                return try keep(envelope, device)
            }
        }
        let id = TimeOrderedUUID.make(milliseconds: time)
        let deliveries: [NewDelivery]
        let acceptance: PushAcceptance
        do {
            // A push refused while sealing (a content too large for one subscription) or storing
            // stores nothing, so the deliveries it spent come back.
            deliveries = try active.map { device in
                try sealer.delivery(
                    of: payload, push, collapseID: collapseID, to: device,
                    receipt: try receipts.map(DeliveryReceipt.make), keep: keep)
            }
            acceptance = try store.acceptPush(
                id: id, in: app, idempotencyKey: push.idempotencyKey, requestHash: requestHash, at: time,
                deliveries: deliveries)
        } catch {
            limiter.refund(active.count, of: .deliveries, token: token)
            throw error
        }
        // Another request with the same key may have been stored meanwhile.
        if let earlier = acceptance.earlier {
            limiter.refund(active.count, of: .deliveries, token: token)
            return try answer(to: push, in: app, from: earlier)
        }
        metrics.pushAccepted(in: app)
        log.write(
            "accepted",
            [("app", .string(app.name)), ("push", .string(id)), ("deliveries", .number(JSONNumber(deliveries.count)))])
        onAccepted(NewDelivery.kinds(of: deliveries))
        return Accepted(
            id: id, deliveries: deliveries.count, repeated: false, truncated: deliveries.filter(\.bodyTruncated).count,
            fetched: fetched)
    }

    /// The receipts `push`'s deliveries carry (gateway-v1.md, "Receipts"): the app's, unless its
    /// `options.receipt` is false.
    /// - Throws: ``APIError`` 422 for `options.receipt` in an app without `receipts`, or a payload
    ///   that sets the member the receipt goes into.
    private func receiptSettings(for push: PushRequest, payload: JSONObject) throws(APIError) -> ReceiptSettings? {
        guard let receipts else {
            guard push.receipt == nil else {
                throw .unprocessable(
                    JSONPath.root.member("options").member("receipt"),
                    "the app has no receipts configuration: nowhere for a device to report to (gateway-v1.md, \"Receipts\")"
                )
            }
            return nil
        }
        guard push.receipt ?? true else { return nil }
        guard payload[ReceiptTicket.member] == nil else {
            throw .unprocessable(
                JSONPath.root.member("payload").member(ReceiptTicket.member),
                "is the gateway's: it puts each delivery's receipt there")
        }
        return receipts
    }

    /// How `push`'s content is kept when it does not fit an APNs payload (gateway-v1.md,
    /// "Fetched content"): nil unless its `options.fetch`, else the app's `fetch.by_default`, asks
    /// for it. Kept for the push's `expiration` (its app's retention without one), at least 10
    /// minutes. A push that a device refuses after some content was kept leaves that content to
    /// expire unfetched.
    /// - Throws: ``APIError`` 422 for `options.fetch` in an app without `fetch`.
    private func keeper(for push: PushRequest, at time: Int64) throws(APIError)
        -> ((_ envelope: [UInt8], _ device: Device) throws -> FetchReference)?
    {
        guard push.fetch ?? fetch?.byDefault ?? false else { return nil }
        guard let fetch else {
            throw .unprocessable(
                JSONPath.root.member("options").member("fetch"),
                "the app has no fetch configuration: nowhere for a device to fetch from (gateway-v1.md, \"Fetched content\")"
            )
        }
        let ttl = push.expiration.map { max(0, $0 - Int(time / 1_000)) } ?? retentionHours * 3_600
        return { [store, retentionHours, log] envelope, device in
            try FetchedContent.keep(
                envelope, format: .envelope, from: FetchObject.appSource, for: device, publicURL: fetch.publicURL,
                ttl: ttl,
                retentionHours: retentionHours, store: store, log: log, at: time
            ).reference
        }
    }

    /// The answer to `push` when its idempotency key names an earlier push: that push, as a repeat,
    /// or 409 when the requests differ.
    private func answer(to push: PushRequest, in app: AppID, from earlier: (id: String, sameRequest: Bool)) throws
        -> Accepted
    {
        guard earlier.sameRequest else {
            throw APIError.idempotencyConflict(push.idempotencyKey ?? "", earlier: earlier.id)
        }
        return Accepted(
            id: earlier.id, deliveries: try store.push(id: earlier.id, in: app)?.deliveries.count ?? 0, repeated: true,
            truncated: 0)
    }
}
