internal import PushSealCore
internal import PushSealDelivery
internal import PushSealGatewayModel
internal import PushSealGatewayStorage

/// What the delivery workers sign with and reach: the APNs provider token issuer (from the `.p8`
/// key, wiped once parsed), the APNs hosts, and, with `webpush`, the Web Push client with its
/// VAPID key; and the worker pools made with them.
struct DeliveryCredentials: Sendable {
    /// Issues the APNs provider tokens.
    let tokens: ProviderTokenIssuer
    /// The APNs host of each environment the configuration names.
    let apnsHosts: [APNsEnvironment: APNsEndpoint]
    /// Certificates to trust instead of the system's for APNs (a mock's, in tests).
    let caFile: String?
    /// The Web Push client, when the configuration has `webpush`.
    let webPush: WebPushClient?

    /// The credentials `configuration` names, read and checked.
    /// - Throws: `GatewayError` naming the file or setting that is wrong.
    init(_ configuration: GatewayConfiguration) throws(GatewayError) {
        var authKey = try ConfiguredFile.secret(configuration.authKeyFile)
        do {
            tokens = try ProviderTokenIssuer(
                wipingAuthKeyPEM: &authKey, keyID: configuration.keyID, teamID: configuration.teamID)
        } catch {
            throw GatewayError("\(configuration.authKeyFile): \(error)")
        }
        var hosts: [APNsEnvironment: APNsEndpoint] = [:]
        for environment in APNsEnvironment.allCases {
            hosts[environment] = configuration.hosts[environment.rawValue].map(APNsEndpoint.init(baseURL:))
        }
        apnsHosts = hosts
        caFile = configuration.caFile
        webPush = try configuration.webPush.map(Self.webPushClient)
    }

    /// The worker pools: APNs', and Web Push's with `webpush`, each over `store`.
    func workers(
        _ configuration: GatewayConfiguration, store: any GatewayStore, routing: WebhookRouting, metrics: Metrics,
        log: EventLog
    ) -> [DeliveryWorkers] {
        let (tokens, hosts, caFile) = (tokens, apnsHosts, caFile)
        var workers = [
            DeliveryWorkers(
                .apns, store: store, count: configuration.workers, leaseSeconds: configuration.leaseSeconds,
                routing: routing, metrics: metrics, log: log
            ) { APNsSender(tokens: tokens, hosts: hosts, caFile: caFile, log: log) }
        ]
        if let webPush, let settings = configuration.webPush {
            workers.append(
                DeliveryWorkers(
                    .webPush, store: store, count: settings.workers, leaseSeconds: configuration.leaseSeconds,
                    routing: routing, metrics: metrics, log: log
                ) { WebPushSender(client: webPush) })
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
