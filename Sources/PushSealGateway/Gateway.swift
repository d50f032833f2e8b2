internal import PushSealCore
internal import PushSealDelivery

/// A running gateway: the store, the API on its HTTP server, and the delivery workers (APNs ones,
/// and Web Push ones when the configuration has `webpush`).
public final class Gateway: Sendable {
    private let server: HTTPServer
    private let workers: [DeliveryWorkers]
    #if canImport(CLibPQ)
        /// Wakes the workers when another instance accepts a push (PostgreSQL only).
        private let listener: OutboxListener?
    #endif

    /// The port the API listens on.
    public var port: UInt16 { server.port }

    /// Starts everything `configuration` names: opens and migrates the database, reads the keys
    /// (wiped once parsed), listens, and starts the workers.
    /// - Parameters:
    ///   - configuration: what to run, as `serve --config` reads it.
    ///   - logging: whether event lines go to standard error.
    /// - Throws: ``GatewayError`` naming what could not be set up.
    public init(configuration: GatewayConfiguration, logging: Bool = true) throws(GatewayError) {
        let log = EventLog(enabled: logging)
        let store = try Self.openStore(configuration)
        let sealer = try PushSealer(
            senderKeyFiles: configuration.senderKeyFiles, contractFile: configuration.contractFile)
        var authKey = try ConfiguredFile.secret(configuration.authKeyFile)
        let tokens: ProviderTokenIssuer
        do {
            tokens = try ProviderTokenIssuer(
                wipingAuthKeyPEM: &authKey, keyID: configuration.keyID, teamID: configuration.teamID)
        } catch {
            throw GatewayError("\(configuration.authKeyFile): \(error)")
        }
        let metrics = Metrics()
        var hosts: [APNsEnvironment: APNsEndpoint] = [:]
        for environment in APNsEnvironment.allCases {
            hosts[environment] = configuration.hosts[environment.rawValue].map(APNsEndpoint.init(baseURL:))
        }
        let caFile = configuration.caFile
        let apnsHosts = hosts
        var workers = [
            DeliveryWorkers(
                .apns, store: store, count: configuration.workers, leaseSeconds: configuration.leaseSeconds,
                metrics: metrics, log: log
            ) { APNsSender(tokens: tokens, hosts: apnsHosts, caFile: caFile, log: log) }
        ]
        let webPush = try configuration.webPush.map(Self.webPushClient)
        if let webPush, let settings = configuration.webPush {
            workers.append(
                DeliveryWorkers(
                    .webPush, store: store, count: settings.workers, leaseSeconds: configuration.leaseSeconds,
                    metrics: metrics, log: log
                ) { WebPushSender(client: webPush) })
        }
        let api = GatewayAPI(
            store: store, sealer: sealer, webPush: webPush, topics: configuration.topics,
            maximumDeliveriesPerPush: configuration.maximumDeliveriesPerPush, metrics: metrics, log: log,
            isReady: { (try? tokens.token()) != nil }, providerTokens: { tokens.issuedCount },
            onAccepted: { [workers] in for pool in workers { pool.notify() } })
        let databaseConnections: Int =
            switch configuration.database {
            case .sqlite: 1 + SQLiteDatabase.readers
            case .postgres(_, _, let connections): connections
            }
        let httpConnections = try DescriptorBudget.connections(
            configured: configuration.http.connections, descriptors: DescriptorBudget.raiseLimit(),
            open: DescriptorBudget.openNow(), workers: configuration.workers + (configuration.webPush?.workers ?? 0),
            databaseConnections: databaseConnections)
        do {
            server = try HTTPServer(
                host: configuration.listenHost, port: configuration.listenPort, limits: configuration.http,
                connections: httpConnections, maximumBodyBytes: GatewayAPI.maximumBodyBytes,
                onEarlyClose: { metrics.connectionClosedEarly($0) }, handler: { api.respond($0) })
        } catch {
            throw GatewayError("\(error)")
        }
        self.workers = workers
        #if canImport(CLibPQ)
            listener = (store as? PostgresGatewayStore).map { [workers] store in
                OutboxListener(pool: store.pool) { for pool in workers { pool.notify() } }
            }
        #endif
        for pool in workers { pool.start() }
        log.write(
            "started",
            [
                ("port", .number(JSONNumber(Int(server.port)))),
                ("http_connections", .number(JSONNumber(httpConnections))),
            ])
    }

    /// Stops accepting requests, lets the workers finish the deliveries in flight (the rest stays
    /// queued), then stops the server.
    public func stop() {
        server.stopAccepting()
        #if canImport(CLibPQ)
            listener?.stop()
        #endif
        for pool in workers { pool.stop() }
        server.stop()
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

    /// The store the configuration names, migrated.
    static func openStore(_ configuration: GatewayConfiguration) throws(GatewayError) -> any GatewayStore {
        do {
            let store: any GatewayStore
            switch configuration.database {
            case .sqlite(let path):
                store = try SQLiteGatewayStore(path: path)
            case .postgres(let url, let passwordFile, let connections):
                #if canImport(CLibPQ)
                    store = PostgresGatewayStore(url: url, passwordFile: passwordFile, connections: connections)
                #else
                    throw GatewayError("this build has no PostgreSQL client (libpq)")
                #endif
            }
            try store.migrate()
            return store
        } catch {
            throw GatewayError("database \(configuration.database): \(error)")
        }
    }
}
