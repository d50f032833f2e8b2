internal import PushSealCore
internal import PushSealDelivery
internal import PushSealGatewayModel
internal import PushSealGatewayStorage

/// What the API serves one app with, made from its configuration: its sealer (sender keys and
/// contract), the topics its devices may register for, its Web Push client and relay, its tokens'
/// rates, and its test push. A request reaches only its own app's.
struct AppServices: Sendable {
    /// The app.
    let id: AppID
    /// Seals the app's pushes with its sender keys, under its contract.
    let sealer: PushSealer
    /// The app's Web Push client (its VAPID key), when it has `webpush`.
    let webPush: WebPushClient?
    /// The bundle ids its devices may register for.
    let topics: [String]
    /// Accepts its pushes.
    let pushes: PushAcceptor
    /// Its tokens' rates.
    let limiter: RateLimiter
    /// What its test push shows.
    let testNotification: (title: String, body: String)
    /// The gateway as a Web Push service for its APNs devices, when it has `relay`.
    let relay: WebPushRelay?
    /// Where its devices report what they showed, when it has `receipts`.
    let receipts: ReceiptSettings?

    /// The services of `app`, with `webPush` its client, over `store`, its sealer keeping its
    /// agreements in the gateway's `agreements`; `onAccepted` wakes the delivery workers of the
    /// kinds given.
    /// - Throws: `GatewayError` naming a sender key or contract file that is wrong.
    init(
        _ app: AppConfiguration, webPush: WebPushClient?, store: any GatewayStore, agreements: HPKE.SenderAgreements,
        metrics: Metrics, log: EventLog, onAccepted: @escaping @Sendable (Set<DeliveryKind>) -> Void
    ) throws(GatewayError) {
        id = app.id
        sealer = try PushSealer(
            senderKeyFiles: app.senderKeyFiles, contractFile: app.contractFile,
            subscriptionContent: app.webPush?.content, agreements: agreements)
        self.webPush = webPush
        topics = app.apns.topics
        limiter = RateLimiter(app.rateLimits) { metrics.rateLimited($0) }
        pushes = PushAcceptor(
            store: store, sealer: sealer, maximumDeliveriesPerPush: app.maximumDeliveriesPerPush, fetch: app.fetch,
            receipts: app.receipts,
            retentionHours: app.retentionHours, limiter: limiter, metrics: metrics, log: log, onAccepted: onAccepted)
        testNotification = app.testNotification
        receipts = app.receipts
        let sealer = sealer
        relay = app.relay.map {
            WebPushRelay(
                $0, store: store, sealer: sealer, retentionHours: app.retentionHours, metrics: metrics, log: log,
                onAccepted: onAccepted)
        }
    }
}
