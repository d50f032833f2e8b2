internal import PushSealCore
internal import PushSealDelivery
public import PushSealGatewayModel
internal import PushSealGatewayStorage

/// A running gateway: the store, the API on its HTTP server serving every configured app (and the
/// operator's endpoints on their own, with `metrics_listen`), the delivery workers (APNs ones, and
/// Web Push ones when an app has `webpush`), the webhook workers (one per configured endpoint),
/// and its upkeep (heartbeat, retention).
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
    public convenience init(configuration: GatewayConfiguration, logging: Bool = true) throws(GatewayError) {
        try self.init(configuration: configuration, log: EventLog(enabled: logging))
    }

    /// Starts everything `configuration` names, as ``init(configuration:logging:)`` does, writing
    /// its events to `log`.
    init(configuration: GatewayConfiguration, log: EventLog) throws(GatewayError) {
        let (store, _) = try configuration.openStore()
        let credentials = try DeliveryCredentials(configuration)
        let keys = credentials.apns
        let metrics = Metrics(
            apps: configuration.apps.map(\.id), webhookEndpoints: configuration.webhooks.map(\.settings.name))
        let routing = WebhookRouting(configuration.webhooks)
        let webhookWorkers = try WebhookWorkers.configured(
            configuration.webhooks, store: store, metrics: metrics, log: log)
        let housekeeping = Housekeeping(
            store: store,
            serving: configuration.apps.map {
                Housekeeping.ServedApp(id: $0.id, retentionHours: $0.retentionHours, webPush: $0.webPush != nil)
            },
            retentionHours: configuration.retentionHours, metrics: metrics, log: log)
        let workers = credentials.workers(configuration, store: store, routing: routing, metrics: metrics, log: log)
        // A push accepted here, or by any instance on PostgreSQL, wakes the workers of its kinds.
        let wakeWorkers: @Sendable (Set<DeliveryKind>) -> Void = { kinds in
            for pool in workers where kinds.contains(pool.kind) { pool.notify() }
        }
        // One store of agreements for every app's sealer, so that its memory stays bounded.
        let agreements = HPKE.SenderAgreements(capacity: PushSealer.agreementCapacity)
        var apps: [AppServices] = []
        for app in configuration.apps {
            apps.append(
                try AppServices(
                    app, webPush: credentials.webPush[app.id], store: store, agreements: agreements,
                    metrics: metrics, log: log, onAccepted: wakeWorkers))
        }
        let api = GatewayAPI(
            store: store, apps: apps, agreements: agreements, metrics: metrics, log: log, isReady: { keys.canSign },
            providerTokens: { keys.issuedCount },
            status: StatusReport(
                store: store, instance: housekeeping.instance.id, apps: configuration.apps.map(\.id),
                webhookEndpoints: configuration.webhooks.map { ($0.app, $0.settings.name) },
                providerTokenIssuedAt: { keys.oldestIssuedAt(of: $0) }, isDraining: { metrics.isDraining },
                configurationWarnings: configuration.appWarnings,
                receiptApps: Set(configuration.apps.filter { $0.receipts != nil }.map(\.id))),
            operationsApart: configuration.metricsListen != nil, accessLog: configuration.accessLog, routing: routing,
            http: configuration.http)
        let httpConnections = try DescriptorBudget.connections(
            configured: configuration.http.connections, descriptors: DescriptorBudget.raiseLimit(),
            open: DescriptorBudget.openNow(),
            workers: configuration.workers * keys.signers.count + (configuration.webPushWorkers ?? 0),
            databaseConnections: configuration.databaseConnections)
        (server, operationsServer) = try HTTPServer.gatewayListeners(
            configuration, connections: httpConnections, api: api, metrics: metrics)
        self.workers = workers
        self.webhookWorkers = webhookWorkers
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
        log.started(
            configuration, instance: housekeeping.instance.id, port: server.port,
            operationsPort: operationsServer?.port,
            httpConnections: httpConnections)
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
        log.stopped(
            pushesAccepted: accepted, outcomes: outcomes, drained: inFlight == 0,
            milliseconds: Int(began.duration(to: clock.now).seconds * 1_000))
        return inFlight == 0
    }
}
