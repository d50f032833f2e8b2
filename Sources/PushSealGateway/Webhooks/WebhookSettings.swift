internal import PushSealCore
internal import PushSealGatewayModel
internal import PushSealURL

/// One member of the configuration's `webhooks` array: an endpoint that receives events
/// (gateway-v1.md, "Webhooks").
///
/// ```json
/// "webhooks": [{"name": "backend", "url": "https://hooks.example.com/pushseal",
///               "secret_files": ["webhook-secret"], "events": ["device.unregistered"]}]
/// ```
public struct WebhookSettings: Sendable {
    /// Its name, as the store, the logs and the metrics know it: 1 to 64 of `a-z`, `0-9`, `-`
    /// and `_`, unique in the configuration.
    public let name: String
    /// Where events are POSTed: an https URL, whose host is no literal local address unless
    /// ``allowsLocalDestinations``.
    public let url: String
    /// The files of the signing secrets (`whsec_` and base64, as Standard Webhooks writes them),
    /// 0600: one, or two while a secret is rotated (every message is then signed with both).
    public let secretFiles: [String]
    /// The event types sent (all of them by default).
    let events: Set<WebhookEventType>
    /// The most events in one request (1, the default: one message per event; up to 100 for a
    /// receiver that takes batches).
    public let batchSize: Int
    /// How long an event is tried before it ends as failed, in hours (1 to 168; 72).
    public let retryHours: Int
    /// How long the endpoint may fail without a success before it is disabled, in hours (1 to
    /// 168; 24).
    public let disableAfterHours: Int
    /// Whether the URL may reach loopback and local-network addresses. False by default.
    public let allowsLocalDestinations: Bool
    /// Certificates to trust for this endpoint instead of the system's (a private CA).
    public let caFile: String?

    /// Every member of the `webhooks` array `value` (at `path`); relative files go through
    /// `resolve`.
    /// - Throws: ``GatewayError`` naming the member at fault.
    static func list(_ value: JSONValue?, at path: JSONPath, resolve: (String) -> String) throws(GatewayError)
        -> [WebhookSettings]
    {
        guard let value else { return [] }
        guard case .array(let members) = value, members.count <= 16 else {
            throw GatewayConfiguration.invalid(path, "must be an array of at most 16 endpoints")
        }
        var settings: [WebhookSettings] = []
        for (index, member) in members.enumerated() {
            let memberPath = path.element(index)
            guard let object = member.objectValue else {
                throw GatewayConfiguration.invalid(memberPath, "must be an object")
            }
            let endpoint = try WebhookSettings(object, at: memberPath, resolve: resolve)
            guard !settings.contains(where: { $0.name == endpoint.name }) else {
                throw GatewayConfiguration.invalid(memberPath.member("name"), "names another endpoint already")
            }
            settings.append(endpoint)
        }
        return settings
    }

    private init(_ object: JSONObject, at path: JSONPath, resolve: (String) -> String) throws(GatewayError) {
        try GatewayConfiguration.refuseUnknown(
            object,
            [
                "name", "url", "secret_files", "events", "batch_size", "retry_hours", "disable_after_hours",
                "allow_local_destinations", "ca_file",
            ], at: path)
        guard let name = object["name"]?.stringValue, (1...64).contains(name.utf8.count),
            name.utf8.allSatisfy({ Self.nameCharacters.contains($0) })
        else {
            throw GatewayConfiguration.invalid(path.member("name"), "must be 1 to 64 of a-z, 0-9, - and _")
        }
        self.name = name
        allowsLocalDestinations = try GatewayConfiguration.flag(object, "allow_local_destinations", at: path)
        guard let url = object["url"]?.stringValue else {
            throw GatewayConfiguration.invalid(path.member("url"), "must be an https URL")
        }
        do {
            let parsed = try HTTPSURL(url)
            if parsed.hostIsLocalAddress && !allowsLocalDestinations {
                throw GatewayConfiguration.invalid(
                    path.member("url"),
                    "is a local address, which webhooks never reach unless allow_local_destinations is true")
            }
        } catch let error as GatewayError {
            throw error
        } catch {
            throw GatewayConfiguration.invalid(path.member("url"), "is not a usable https URL: \(error)")
        }
        self.url = url
        guard case .array(let files)? = object["secret_files"], (1...2).contains(files.count),
            files.allSatisfy({ !($0.stringValue ?? "").isEmpty })
        else {
            throw GatewayConfiguration.invalid(
                path.member("secret_files"), "must be an array of one or two file names (two while rotating)")
        }
        secretFiles = files.compactMap(\.stringValue).map(resolve)
        switch object["events"] {
        case nil: events = Set(WebhookEventType.allCases)
        case .array(let names)? where !names.isEmpty:
            var events = Set<WebhookEventType>()
            for (index, name) in names.enumerated() {
                guard let type = name.stringValue.flatMap(WebhookEventType.init(rawValue:)) else {
                    throw GatewayConfiguration.invalid(
                        path.member("events").element(index),
                        "must be one of \(WebhookEventType.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                events.insert(type)
            }
            self.events = events
        default:
            throw GatewayConfiguration.invalid(path.member("events"), "must be a non-empty array of event types")
        }
        batchSize = try GatewayConfiguration.integer(object, "batch_size", in: 1...100, at: path) ?? 1
        retryHours = try GatewayConfiguration.integer(object, "retry_hours", in: 1...168, at: path) ?? 72
        disableAfterHours = try GatewayConfiguration.integer(object, "disable_after_hours", in: 1...168, at: path) ?? 24
        caFile = try GatewayConfiguration.file(object, "ca_file", at: path, resolve: resolve)
    }

    private static let nameCharacters = Set("abcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
}

extension WebhookRouting {
    /// The routing of the configured `endpoints`, each of its app.
    init(_ endpoints: [(app: AppID, settings: WebhookSettings)]) {
        self.init(endpoints.map { Subscription(app: $0.app, endpoint: $0.settings.name, events: $0.settings.events) })
    }
}
