internal import PushSealGatewayModel

extension HTTPServer {
    /// The gateway's listeners, serving `api`: the API's on `listen`, with up to `connections`
    /// connections, and the operator's on `metrics_listen` when the configuration has one (few
    /// connections, the same slow-client limits, no request body).
    /// - Throws: `GatewayError` when an address cannot be listened on.
    static func gatewayListeners(
        _ configuration: GatewayConfiguration, connections: Int, api: GatewayAPI, metrics: Metrics
    ) throws(GatewayError) -> (api: HTTPServer, operations: HTTPServer?) {
        do {
            let server = try HTTPServer(
                host: configuration.listenHost, port: configuration.listenPort, limits: configuration.http,
                connections: connections, maximumBodyBytes: GatewayAPI.maximumBodyBytes,
                onEarlyClose: { metrics.connectionClosedEarly($0) }, handler: { api.respond($0) })
            let operations = try configuration.metricsListen.map { address in
                try HTTPServer(
                    host: address.host, port: address.port, limits: configuration.http, connections: 64,
                    maximumBodyBytes: 0, onEarlyClose: { metrics.connectionClosedEarly($0) },
                    handler: { api.respond($0, on: .operations) })
            }
            return (server, operations)
        } catch {
            throw GatewayError("\(error)")
        }
    }
}
