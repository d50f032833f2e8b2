internal import PushSealHTTPS

/// `pushseal-gateway health`: whether the gateway that serves a configuration answers its
/// liveness endpoint, for a container's `HEALTHCHECK`, which then needs no shell and no curl in the
/// image. It asks the listener itself, in clear text: an unspecified listen address (`0.0.0.0`,
/// `::`) is asked on its loopback.
enum GatewayHealthCheck {
    /// How long the whole exchange may take; a container runtime's own timeout may be shorter.
    static let timeout = Duration.seconds(5)

    /// Asks `GET /healthz` of the listener in `configuration`; 0 when it answers 200, else 1 with
    /// one line on standard error saying what it answered or why nothing did.
    static func run(_ configuration: GatewayConfiguration) -> Int32 {
        let host = loopback(for: configuration.listenHost)
        let port = Int(configuration.listenPort)
        let target = host.contains(":") ? "http://[\(host)]:\(port)/healthz" : "http://\(host):\(port)/healthz"
        do {
            let status = try LoopbackStatusProbe.status(host: host, port: port, path: "/healthz", timeout: timeout)
            guard status == 200 else {
                GatewayCommand.printError("pushseal-gateway: unhealthy: GET \(target) answered \(status)")
                return 1
            }
            print("pushseal-gateway: healthy: GET \(target) answered 200")
            return 0
        } catch {
            GatewayCommand.printError("pushseal-gateway: unhealthy: GET \(target): \(error)")
            return 1
        }
    }

    /// The address to ask for a listener on `host` (the configuration's, without brackets): its
    /// loopback when it listens on every address.
    static func loopback(for host: String) -> String {
        switch host {
        case "0.0.0.0": "127.0.0.1"
        case "::": "::1"
        default: host
        }
    }
}
