internal import PushSealCore
internal import PushSealDelivery
internal import PushSealGatewayModel

/// Every app's APNs keys, and the connection each delivery takes: a token-auth connection is bound
/// to the key that signs it, so there is one provider token issuer per key (a key two apps name is
/// one) and one connection per key, host and environment. A delivery goes through the key its
/// app's configuration gives its topic (``APNsSettings/key(for:)``); a refused key holds only the
/// deliveries it signs for.
struct APNsKeyRing: Sendable {
    /// One `.p8` key, parsed, and the tokens it issues.
    struct Signer: Sendable {
        /// The key's id.
        let keyID: String
        /// Its team's id.
        let teamID: String
        /// Issues its provider tokens.
        let tokens: ProviderTokenIssuer
    }

    /// The connection a delivery takes: its key's, to its app's host of its environment.
    struct Route: Hashable, Sendable {
        /// The key, an index into ``signers``.
        let signer: Int
        /// The environment.
        let environment: APNsEnvironment
        /// The host.
        let endpoint: APNsEndpoint
        /// Certificates to trust instead of the system's, if any.
        let caFile: String?
    }

    /// How one app's deliveries find their route.
    private struct AppRoutes: Sendable {
        /// Each topic's key, an index into ``signers``.
        let signerByTopic: [String: Int]
        /// The host of each environment.
        let hosts: [APNsEnvironment: APNsEndpoint]
        /// The app's `ca_file`.
        let caFile: String?
    }

    /// Every key, in configuration order.
    let signers: [Signer]
    private let apps: [AppID: AppRoutes]
    /// Each app's keys, indexes into ``signers``.
    private let signersByApp: [AppID: Set<Int>]

    /// The keys of every app of `configuration`, read (0600) and wiped once parsed.
    /// - Throws: `GatewayError` naming the file that cannot be read or is no key.
    init(_ configuration: GatewayConfiguration) throws(GatewayError) {
        var signers: [Signer] = []
        var apps: [AppID: AppRoutes] = [:]
        var signersByApp: [AppID: Set<Int>] = [:]
        for app in configuration.apps {
            var indexByKey: [APNsKeySettings: Int] = [:]
            for key in app.apns.keys {
                if let index = signers.firstIndex(where: { $0.keyID == key.keyID && $0.teamID == key.teamID }) {
                    indexByKey[key] = index
                    continue
                }
                var pem = try ConfiguredFile.secret(key.authKeyFile)
                do {
                    let tokens = try ProviderTokenIssuer(wipingAuthKeyPEM: &pem, keyID: key.keyID, teamID: key.teamID)
                    signers.append(Signer(keyID: key.keyID, teamID: key.teamID, tokens: tokens))
                } catch {
                    throw GatewayError("\(key.authKeyFile): \(error)")
                }
                indexByKey[key] = signers.count - 1
            }
            var signerByTopic: [String: Int] = [:]
            for topic in app.apns.topics {
                signerByTopic[topic] = app.apns.key(for: topic).flatMap { indexByKey[$0] }
            }
            var hosts: [APNsEnvironment: APNsEndpoint] = [:]
            for environment in APNsEnvironment.allCases {
                hosts[environment] = app.apns.hosts[environment.rawValue].map(APNsEndpoint.init(baseURL:))
            }
            apps[app.id] = AppRoutes(signerByTopic: signerByTopic, hosts: hosts, caFile: app.apns.caFile)
            signersByApp[app.id] = Set(indexByKey.values)
        }
        self.signers = signers
        self.apps = apps
        self.signersByApp = signersByApp
    }

    /// The route of `delivery`: its app's key for its `apns-topic`, to its environment's host;
    /// nil when the configuration no longer has its app, topic or host.
    func route(_ delivery: OutboxDelivery) -> Route? {
        guard let app = apps[delivery.app], let environment = delivery.environment,
            let topic = delivery.headers.first(where: { $0.name == "apns-topic" })?.value,
            let signer = app.signerByTopic[topic], let endpoint = app.hosts[environment]
        else { return nil }
        return Route(signer: signer, environment: environment, endpoint: endpoint, caFile: app.caFile)
    }

    /// Whether every key issues a provider token.
    var canSign: Bool { signers.allSatisfy { (try? $0.tokens.token()) != nil } }

    /// The provider tokens issued by every key since the start.
    var issuedCount: Int { signers.reduce(0) { $0 + $1.tokens.issuedCount } }

    /// When the oldest current token of `app`'s keys (of every key when nil) was issued, a UNIX
    /// time; nil before any.
    func oldestIssuedAt(of app: AppID?) -> Int? {
        let keys = app.map { signersByApp[$0] ?? [] } ?? Set(signers.indices)
        return keys.compactMap { signers[$0].tokens.currentIssuedAt }.min()
    }
}
