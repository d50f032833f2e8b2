internal import PushSealCore
internal import PushSealDelivery

/// A running gateway: the store, the API on its HTTP server, and the delivery workers.
public final class Gateway: Sendable {
    private let server: HTTPServer
    private let workers: DeliveryWorkers

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
        let workers = DeliveryWorkers(
            store: store, tokens: tokens, hosts: hosts, caFile: configuration.caFile, count: configuration.workers,
            leaseSeconds: configuration.leaseSeconds,
            metrics: metrics, log: log)
        let api = GatewayAPI(
            store: store, sealer: sealer, topics: configuration.topics, metrics: metrics, log: log,
            isReady: { (try? tokens.token()) != nil }, providerTokens: { tokens.issuedCount },
            onAccepted: { workers.notify() })
        do {
            server = try HTTPServer(
                host: configuration.listenHost, port: configuration.listenPort, threads: 4,
                maximumBodyBytes: GatewayAPI.maximumBodyBytes, handler: { api.respond($0) })
        } catch {
            throw GatewayError("\(error)")
        }
        self.workers = workers
        workers.start()
        log.write("started", [("port", .number(JSONNumber(Int(server.port))))])
    }

    /// Stops accepting requests, lets the workers finish the deliveries in flight (the rest stays
    /// queued), then stops the server.
    public func stop() {
        server.stopAccepting()
        workers.stop()
        server.stop()
    }

    /// The store the configuration names, migrated.
    static func openStore(_ configuration: GatewayConfiguration) throws(GatewayError) -> any GatewayStore {
        do {
            let store = try SQLiteGatewayStore(path: configuration.databasePath)
            try store.migrate()
            return store
        } catch {
            throw GatewayError("database \(configuration.databasePath): \(error)")
        }
    }
}
