internal import Dispatch
internal import PushSealCore
internal import PushSealDelivery
public import PushSealGatewayModel
internal import PushSealGatewayStorage

/// A running gateway: the store, the API on its HTTP server (and the operator's endpoints on
/// their own, with `metrics_listen`), the delivery workers (APNs ones, and Web Push ones when the
/// configuration has `webpush`), the webhook workers (one per configured endpoint), and its upkeep
/// (heartbeat, retention).
public final class Gateway: Sendable {
    private let server: HTTPServer
    private let operationsServer: HTTPServer?
    private let workers: [DeliveryWorkers]
    private let webhookWorkers: WebhookWorkers?
    private let api: GatewayAPI
    private let housekeeping: Housekeeping
    private let metrics: Metrics
    private let log: EventLog
    private let drainSeconds: Int
    #if canImport(CLibPQ)
        /// Wakes the workers when another instance accepts a push (PostgreSQL only).
        private let listener: OutboxListener?
    #endif

    /// The port the API listens on.
    public var port: UInt16 { server.port }
    /// The port of `metrics_listen`, when the configuration has one.
    public var operationsPort: UInt16? { operationsServer?.port }
    /// This instance's id, as its heartbeat and the status page name it.
    var instanceID: String { housekeeping.instance.id }

    /// Starts everything `configuration` names: opens and migrates the database, reads the keys
    /// (wiped once parsed), listens, and starts the workers.
    /// - Parameters:
    ///   - configuration: what to run, as `serve --config` reads it.
    ///   - logging: whether event lines go to standard error.
    /// - Throws: `GatewayError` naming what could not be set up.
    public init(configuration: GatewayConfiguration, logging: Bool = true) throws(GatewayError) {
        let log = EventLog(enabled: logging)
        let (store, _) = try Self.openStore(configuration)
        let sealer = try PushSealer(
            senderKeyFiles: configuration.senderKeyFiles, contractFile: configuration.contractFile,
            subscriptionContent: configuration.webPush?.content)
        var authKey = try ConfiguredFile.secret(configuration.authKeyFile)
        let tokens: ProviderTokenIssuer
        do {
            tokens = try ProviderTokenIssuer(
                wipingAuthKeyPEM: &authKey, keyID: configuration.keyID, teamID: configuration.teamID)
        } catch {
            throw GatewayError("\(configuration.authKeyFile): \(error)")
        }
        let metrics = Metrics(webhookEndpoints: configuration.webhooks.map(\.name))
        let routing = WebhookRouting(configuration.webhooks)
        var signedEndpoints: [(settings: WebhookSettings, signer: WebhookSigner)] = []
        for settings in configuration.webhooks {
            if let failure = WebhookPoster.setupFailure(settings) {
                throw GatewayError("webhooks \(settings.name): \(failure)")
            }
            do {
                signedEndpoints.append((settings, try WebhookSigner(secretFiles: settings.secretFiles)))
            } catch {
                throw GatewayError("webhooks \(settings.name): \(error)")
            }
        }
        let housekeeping = Housekeeping(
            store: store, retentionHours: configuration.retentionHours, metrics: metrics, log: log)
        var hosts: [APNsEnvironment: APNsEndpoint] = [:]
        for environment in APNsEnvironment.allCases {
            hosts[environment] = configuration.hosts[environment.rawValue].map(APNsEndpoint.init(baseURL:))
        }
        let caFile = configuration.caFile
        let apnsHosts = hosts
        var workers = [
            DeliveryWorkers(
                .apns, store: store, count: configuration.workers, leaseSeconds: configuration.leaseSeconds,
                routing: routing, metrics: metrics, log: log
            ) { APNsSender(tokens: tokens, hosts: apnsHosts, caFile: caFile, log: log) }
        ]
        let webPush = try configuration.webPush.map(Self.webPushClient)
        if let webPush, let settings = configuration.webPush {
            workers.append(
                DeliveryWorkers(
                    .webPush, store: store, count: settings.workers, leaseSeconds: configuration.leaseSeconds,
                    routing: routing, metrics: metrics, log: log
                ) { WebPushSender(client: webPush) })
        }
        // A push accepted here, or by any instance on PostgreSQL, wakes the workers of its kinds.
        let wakeWorkers: @Sendable (Set<DeliveryKind>) -> Void = { [workers] kinds in
            for pool in workers where kinds.contains(pool.kind) { pool.notify() }
        }
        let api = GatewayAPI(
            store: store, sealer: sealer, webPush: webPush, topics: configuration.topics,
            maximumDeliveriesPerPush: configuration.maximumDeliveriesPerPush, metrics: metrics, log: log,
            isReady: { (try? tokens.token()) != nil }, providerTokens: { tokens.issuedCount },
            status: StatusReport(
                store: store, instance: housekeeping.instance.id, webhookEndpoints: configuration.webhooks.map(\.name),
                providerTokenIssuedAt: { tokens.currentIssuedAt }, isDraining: { metrics.isDraining }),
            operationsApart: configuration.metricsListen != nil, accessLog: configuration.accessLog,
            testNotification: configuration.testNotification, routing: routing, rateLimits: configuration.rateLimits,
            relay: configuration.relay,
            onAccepted: wakeWorkers)
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
            // The operator's listener: few connections, the same slow-client limits.
            operationsServer = try configuration.metricsListen.map { address in
                try HTTPServer(
                    host: address.host, port: address.port, limits: configuration.http, connections: 64,
                    maximumBodyBytes: 0, onEarlyClose: { metrics.connectionClosedEarly($0) },
                    handler: { api.respond($0, on: .operations) })
            }
        } catch {
            throw GatewayError("\(error)")
        }
        self.workers = workers
        webhookWorkers =
            signedEndpoints.isEmpty
            ? nil : WebhookWorkers(endpoints: signedEndpoints, store: store, metrics: metrics, log: log)
        self.api = api
        self.housekeeping = housekeeping
        self.metrics = metrics
        self.log = log
        drainSeconds = configuration.drainSeconds
        #if canImport(CLibPQ)
            listener = (store as? PostgresGatewayStore).map { OutboxListener(pool: $0.pool, onWork: wakeWorkers) }
        #endif
        for pool in workers { pool.start() }
        webhookWorkers?.start()
        housekeeping.start()
        var started: [(String, JSONValue)] = [
            ("version", .string(GatewayVersion.number)), ("instance", .string(housekeeping.instance.id)),
            ("listen", .string("\(configuration.listenHost):\(server.port)")),
            ("database", .string(configuration.database.kind)),
            ("schema", .number(JSONNumber(GatewaySchema.version))),
            ("apns_workers", .number(JSONNumber(configuration.workers))),
            ("webpush_workers", .number(JSONNumber(configuration.webPush?.workers ?? 0))),
            ("webhook_endpoints", .number(JSONNumber(configuration.webhooks.count))),
            ("http_connections", .number(JSONNumber(httpConnections))),
            ("retention_hours", .number(JSONNumber(configuration.retentionHours))),
            ("drain_seconds", .number(JSONNumber(configuration.drainSeconds))),
        ]
        if let operationsServer, let address = configuration.metricsListen {
            started.append(("metrics_listen", .string("\(address.host):\(operationsServer.port)")))
        }
        log.write("started", started)
    }

    /// Drains and stops (gateway-v1.md, "Stopping"): `/readyz` and every API request answer 503
    /// at once, no new batch is claimed, and the deliveries in flight get until `drain_seconds`
    /// after the call. Those still unanswered then stay leased, and are sent again once their
    /// lease ends (by another instance, or this one's next start): at least once. Returns whether
    /// every worker finished in time.
    @discardableResult
    public func stop() -> Bool {
        let clock = ContinuousClock()
        let began = clock.now
        let deadline = began.advanced(by: .seconds(drainSeconds))
        metrics.startDraining()
        api.startDraining()
        #if canImport(CLibPQ)
            listener?.stop()
        #endif
        housekeeping.stop()
        // Every kind of worker stops claiming at once, and all share the one deadline.
        for pool in workers { pool.beginStopping() }
        webhookWorkers?.beginStopping()
        var inFlight = 0
        for pool in workers { inFlight += pool.waitUntilStopped(before: deadline) }
        webhookWorkers?.waitUntilStopped(before: deadline)
        if inFlight > 0 {
            log.write("drain-deadline", [("batches_in_flight", .number(JSONNumber(inFlight)))])
        }
        housekeeping.leave()
        server.stop()
        operationsServer?.stop()
        let (accepted, outcomes) = metrics.totals()
        let milliseconds = Int(began.duration(to: clock.now).seconds * 1_000)
        log.write(
            "stopped",
            [
                ("pushes_accepted", .number(JSONNumber(accepted))),
                (
                    "deliveries",
                    .object(
                        JSONObject(outcomes.sorted { $0.key < $1.key }.map { ($0.key, .number(JSONNumber($0.value))) }))
                ),
                ("drained", .bool(inFlight == 0)),
                ("duration_ms", .number(JSONNumber(milliseconds))),
            ])
        return inFlight == 0
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

    /// The store the configuration names, migrated, and what the migration did.
    static func openStore(_ configuration: GatewayConfiguration) throws(GatewayError) -> (
        any GatewayStore, SchemaChange
    ) {
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
            return (store, try store.migrate())
        } catch {
            throw GatewayError("database \(configuration.database): \(error)")
        }
    }
}
