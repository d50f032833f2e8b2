internal import PushSealCore
internal import PushSealDelivery
internal import PushSealGatewayModel
internal import PushSealGatewayStorage

/// What the delivery workers sign with and reach: every app's APNs keys and hosts
/// (``APNsKeyRing``, each `.p8` wiped once parsed), and the Web Push client of each app with
/// `webpush`, with its VAPID key; and the worker pools made with them, one per kind for every app.
struct DeliveryCredentials: Sendable {
    /// Every app's APNs keys, and each delivery's connection.
    let apns: APNsKeyRing
    /// The Web Push client of each app that has `webpush`.
    let webPush: [AppID: WebPushClient]

    /// The credentials `configuration` names, read and checked.
    /// - Throws: `GatewayError` naming the file or setting that is wrong.
    init(_ configuration: GatewayConfiguration) throws(GatewayError) {
        apns = try APNsKeyRing(configuration)
        var clients: [AppID: WebPushClient] = [:]
        for app in configuration.apps {
            clients[app.id] = try app.webPush.map(Self.webPushClient)
        }
        webPush = clients
    }

    /// The worker pools: APNs', and Web Push's when an app has `webpush`, each over `store`.
    func workers(
        _ configuration: GatewayConfiguration, store: any GatewayStore, routing: WebhookRouting, metrics: Metrics,
        log: EventLog
    ) -> [DeliveryWorkers] {
        let (keys, clients) = (apns, webPush)
        var workers = [
            DeliveryWorkers(
                .apns, of: configuration.apps.map(\.id), store: store, count: configuration.workers,
                leaseSeconds: configuration.leaseSeconds,
                routing: routing, metrics: metrics, log: log
            ) { APNsSender(keys: keys, log: log) }
        ]
        if let count = configuration.webPushWorkers {
            workers.append(
                DeliveryWorkers(
                    .webPush, of: configuration.apps.filter { $0.webPush != nil }.map(\.id), store: store, count: count,
                    leaseSeconds: configuration.leaseSeconds,
                    routing: routing, metrics: metrics, log: log
                ) { WebPushSender(clients: clients, log: log) })
        }
        return workers
    }

    /// The Web Push client `settings` describe: VAPID with the key file (0600, wiped once
    /// parsed), no retries of its own (the outbox retries, after the service's `Retry-After`).
    static func webPushClient(_ settings: WebPushSettings) throws(GatewayError) -> WebPushClient {
        var bytes = try ConfiguredFile.secret(settings.vapidKeyFile)
        do {
            let vapid = try VAPIDIssuer(key: try VAPIDKey(wipingFileBytes: &bytes), subject: settings.subject)
            return try WebPushClient(
                vapid: vapid, caFile: settings.caFile, allowsLocalDestinations: settings.allowsLocalDestinations,
                allowedHosts: settings.allowedHosts, answerTimeout: WebPushSender.answerTimeout, retries: 0,
                maximumRetryAfter: 0)
        } catch {
            throw GatewayError("webpush: \(settings.vapidKeyFile): \(error)")
        }
    }
}
