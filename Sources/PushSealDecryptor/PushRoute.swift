public import PushSealCore

/// What the contract makes of decrypted content: a route to navigate to, or the reason there is
/// none. Only decrypted content is ever routed: an unsealed or degraded payload has no
/// ``DecryptionResult/route`` at all, so a spoofed push cannot navigate.
public enum PushRoute: Sendable, Hashable {
    /// The content names a valid route. With ``DecryptionResult/duplicate`` true, refresh the
    /// screen that shows it; never navigate to it a second time.
    case route(Route)
    /// The content breaks the contract: show the notification, navigate nowhere.
    case error(RouteError)

    /// The route, when there is one.
    public var route: Route? {
        if case .route(let route) = self { return route }
        return nil
    }

    /// Routes `content` under `contract`.
    init(content: JSONObject, contract: PayloadContract) {
        do {
            self = .route(try contract.route(for: content))
        } catch {
            self = .error(error)
        }
    }
}
