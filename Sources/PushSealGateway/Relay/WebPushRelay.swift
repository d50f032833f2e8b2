internal import PushSealCore
internal import PushSealEncryptor
internal import PushSealGatewayModel
internal import PushSealGatewayStorage
internal import PushSealPrimitives

/// The gateway as a Web Push service for its APNs devices (gateway-v1.md, "Web Push in"): it
/// gives a device endpoints, takes what senders post to them as RFC 8030 says, and forwards each
/// message unopened in an APNs alert push through the outbox, with every guarantee the outbox
/// has. It holds no key that opens a message: the device's extension does
/// (webpush-v1.md, "Forwarded to an iPhone").
struct WebPushRelay: Sendable {
    private let settings: RelaySettings
    private let store: any GatewayStore
    /// Seals the reference of a message too large to forward inline, to the device's key.
    private let sealer: PushSealer
    /// The app's retention, in hours: no message is kept to fetch for longer.
    private let retentionHours: Int
    private let limiter: RateLimiter
    private let metrics: Metrics
    private let log: EventLog
    private let onAccepted: @Sendable (Set<DeliveryKind>) -> Void

    /// A relay with `settings`, storing in `store` (a message that does not fit a push for
    /// `retentionHours` at most), sealing references with `sealer`; `onAccepted` wakes the
    /// delivery workers of the kinds given.
    init(
        _ settings: RelaySettings, store: any GatewayStore, sealer: PushSealer, retentionHours: Int,
        metrics: Metrics, log: EventLog, onAccepted: @escaping @Sendable (Set<DeliveryKind>) -> Void
    ) {
        self.settings = settings
        self.sealer = sealer
        self.retentionHours = retentionHours
        self.onAccepted = onAccepted
        self.store = store
        self.metrics = metrics
        self.log = log
        limiter = RateLimiter(.messages(perSecond: settings.messagesPerSecond, burst: settings.messagesBurst)) {
            metrics.rateLimited($0)
        }
    }

    /// `POST /v1/devices/{id}/webpush`: a new endpoint for the APNs device `deviceID`, pinned to
    /// the sender's application server key when `body` names one (`{"vapid_key": <base64url>}`).
    /// 201 `{"endpoint", "vapid_key"}`: the endpoint is shown this once.
    func register(deviceID: String, in app: AppID, body: JSONObject) throws -> HTTPResponse {
        try RequestReader.refuseUnknown(body, ["vapid_key"], at: .root)
        var vapidKey: String?
        if let value = body["vapid_key"] {
            guard let text = value.stringValue, let bytes = Base64URL.decode(text), bytes.count == 65,
                (try? P256.VerifyingKey(x963Representation: bytes)) != nil
            else {
                throw APIError.invalid(
                    JSONPath.root.member("vapid_key"),
                    "must be the sender's application server key: an uncompressed P-256 point in base64url")
            }
            vapidKey = text
        }
        guard let device = try store.device(id: deviceID, in: app) else {
            throw APIError.notFound("device \(deviceID)")
        }
        guard case .apns = device.channel else {
            throw APIError.unprocessable(
                nil, "device \(deviceID) is a Web Push subscription: it has an endpoint of its own already")
        }
        guard device.unregisteredAt == nil else {
            throw APIError.unprocessable(nil, "device \(deviceID) is unregistered: register it again first")
        }
        let (inbox, id) = WebPushInbox.make(
            secret: SecureRandom.bytes(32), for: device, vapidKey: vapidKey, at: GatewayClock.milliseconds())
        try store.addInbox(inbox)
        log.write(
            "webpush-endpoint-created",
            [("app", .string(app.name)), ("device", .string(deviceID)), ("endpoint", .string(inbox.idPrefix))])
        var answer = JSONObject([("endpoint", .string(endpoint(id))), ("device", .string(deviceID))])
        if let vapidKey { answer["vapid_key"] = .string(vapidKey) }
        return .json(201, .object(answer))
    }

    /// `DELETE /v1/webpush/{id}`: `app`'s endpoint answers 410 from now on (another app's is not
    /// found).
    func remove(id: String, in app: AppID) throws -> HTTPResponse {
        guard WebPushInbox.isWellFormed(id),
            try store.removeInbox(idHash: WebPushInbox.hash(id), in: app, at: GatewayClock.milliseconds())
        else { throw APIError.notFound("endpoint") }
        return HTTPResponse(status: 204, headers: [], body: [])
    }

    /// `POST /v1/webpush/{id}` from a sender: the endpoint is found among every app's, and its
    /// app's relay (in `relays`) checks the message (RFC 8030, VAPID when pinned, the size, the
    /// rate), stores it in the outbox as an APNs push to the device, and answers 201 with a
    /// `Location`. An endpoint whose app no longer has a relay is not found.
    static func receive(
        id: String, _ request: HTTPRequest, relays: [AppID: WebPushRelay], store: any GatewayStore, metrics: Metrics
    ) throws -> HTTPResponse {
        guard WebPushInbox.isWellFormed(id), let found = try store.inbox(idHash: WebPushInbox.hash(id)),
            let relay = relays[found.0.app]
        else {
            metrics.webPushReceived(404)
            throw APIError.webPush(404, "no such endpoint")
        }
        let (inbox, device) = found
        guard inbox.removedAt == nil, let device, device.unregisteredAt == nil,
            case .apns(_, let topic, _, _) = device.channel
        else {
            metrics.webPushReceived(410)
            throw APIError.webPush(410, "this endpoint was removed: stop sending to it")
        }
        do {
            return try relay.forward(request, inbox: inbox, device: device, topic: topic)
        } catch let error as APIError {
            metrics.webPushReceived(error.status)
            throw error
        }
    }

    private func forward(_ request: HTTPRequest, inbox: WebPushInbox, device: Device, topic: String) throws
        -> HTTPResponse
    {
        let now = GatewayClock.milliseconds()
        if let pinned = inbox.vapidKey {
            try VAPIDCheck.check(
                request.header("authorization"), cryptoKey: request.header("crypto-key"), pinned: pinned,
                audience: settings.publicURL, now: now / 1_000)
        }
        let message = try InboundMessage(request, maximumBody: WebPushMessage.maximumByteCount)
        // Only a message that would be stored counts against the endpoint's rate.
        try limiter.spend(1, of: .messages, token: inbox.idHash)
        let expiration = message.ttl == 0 ? 0 : Int(now / 1_000) + message.ttl
        let options = APNsRequestOptions(
            topic: topic, collapseID: message.topic, expiration: expiration, priority: message.apnsPriority)
        let delivery: NewDelivery
        var fetchID: String?
        if message.forwarded.count <= settings.maximumForwardedByteCount[message.coding, default: 0] {
            let payload = JSONWriter.bytes(
                .object(
                    ForwardedWebPush.payload(
                        message: message.forwarded, coding: message.coding, endpoint: inbox.idPrefix,
                        placeholder: (title: settings.placeholder.title, body: settings.placeholder.body))))
            let apns = try APNsRequest(body: payload, pushType: .alert, options: options)
            delivery = NewDelivery(
                device: device, headers: apns.headers, body: apns.body, expiration: Int64(expiration))
        } else {
            let (id, reference) = try FetchedContent.keep(
                message.forwarded, format: message.coding.fetchFormat, from: inbox.idHash, for: device,
                publicURL: settings.publicURL,
                ttl: message.ttl,
                retentionHours: retentionHours, store: store, log: log, at: now)
            fetchID = id
            // The endpoint stays in clear beside the envelope, as in a message forwarded in the push.
            delivery = try sealer.referenceDelivery(
                reference, placeholder: settings.placeholder,
                clear: JSONObject([(ForwardedWebPush.endpointMember, .string(inbox.idPrefix))]), to: device,
                options: options, expiration: Int64(expiration))
        }
        let pushID = TimeOrderedUUID.make(milliseconds: now)
        _ = try store.acceptPush(
            id: pushID, in: device.app, idempotencyKey: nil, requestHash: [], at: now, deliveries: [delivery])
        metrics.webPushReceived(201)
        onAccepted([device.channel.kind])
        log.write(
            "webpush-received",
            [
                ("app", .string(device.app.name)), ("endpoint", .string(inbox.idPrefix)),
                ("device", .string(device.id)), ("push", .string(pushID)),
                ("coding", .string(message.coding.rawValue)), ("bytes", .number(JSONNumber(message.bodyByteCount))),
                ("fetch", fetchID.map { .string(FetchedContent.loggedID($0)) } ?? .null),
            ])
        return HTTPResponse(
            status: 201,
            headers: [("Location", "\(settings.publicURL)/v1/pushes/\(pushID)"), ("TTL", "\(message.ttl)")],
            body: [])
    }

    /// The endpoint URL of `id`.
    private func endpoint(_ id: String) -> String { "\(settings.publicURL)/v1/webpush/\(id)" }
}
