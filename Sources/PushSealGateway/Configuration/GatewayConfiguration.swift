internal import PushSealCore
public import PushSealGatewayModel
public import PushSealGatewayStorage
internal import PushSealURL

/// `pushseal-gateway serve --config FILE`: a JSON object with these members (gateway-v1.md,
/// "Configuration"); relative paths are relative to the file. Unknown members are refused, so a
/// misspelt one never passes silently.
///
/// One app, whose members (``AppConfiguration``) sit at the top level beside the gateway's:
///
/// ```json
/// {"listen": "127.0.0.1:8080", "database": "sqlite:gateway.db",
///  "sender_key_files": ["backend-x25519.jwk"],
///  "apns": {"auth_key_file": "AuthKey_ABC123DEFG.p8", "key_id": "ABC123DEFG", "team_id": "DEF123GHIJ",
///           "topics": ["com.example.shop"]},
///  "workers": 4}
/// ```
///
/// or several, each a member of `apps` named by the app's name:
///
/// ```json
/// {"listen": "127.0.0.1:8080", "database": "sqlite:gateway.db",
///  "apps": {"shop": {"sender_key_files": ["shop-x25519.jwk"], "apns": {…}},
///           "news": {"sender_key_files": ["news-x25519.jwk"], "apns": {…}, "webpush": {…}}}}
/// ```
///
/// `"database"` is `sqlite:FILE` or `postgres://USER@HOST:PORT/DATABASE`; with PostgreSQL,
/// `database_password_file` names a `.pgpass` file (else libpq reads `PGPASSFILE`) and
/// `database_connections` bounds the pool (2 to 200; by default the workers, the webhook
/// endpoints and 4).
public struct GatewayConfiguration: Sendable {
    /// The IPv4 or IPv6 address to listen on (`listen` writes an IPv6 one in brackets).
    public let listenHost: String
    /// The port (0: any free one).
    public let listenPort: UInt16
    /// The database: a SQLite file, or PostgreSQL.
    public let database: GatewayDatabase
    /// The apps served, in configuration order: one, `default`, without `apps`.
    public let apps: [AppConfiguration]
    /// APNs delivery workers, for every app.
    public let workers: Int
    /// How long a worker's claim on a batch lasts without renewal: after a crash, its deliveries
    /// are taken up again this long after the last renewal (5 to 600 s; 30 by default).
    public let leaseSeconds: Int
    /// The HTTP server's limits on connections and on slow requests.
    public let http: HTTPLimits
    /// Where `/metrics`, `/status`, `/healthz` and `/readyz` are served apart from the API, if
    /// anywhere (then the API's listener serves neither `/metrics` nor `/status`).
    public let metricsListen: (host: String, port: UInt16)?
    /// How long the records of ended deliveries, pushes and webhook events are kept, in hours (1 to
    /// 8,760; 72): every app's that has no `retention_hours` of its own, and that of rows of an app
    /// no instance served since the schema took apps.
    public let retentionHours: Int
    /// How long a stop waits for deliveries in flight, in seconds (1 to 300; 20).
    public let drainSeconds: Int
    /// Which requests are logged (`request` lines).
    public let accessLog: AccessLogMode

    /// The most apps one gateway serves.
    public static let maximumApps = 100
    /// The hours `retention_hours` may be, the gateway's or an app's.
    static let retentionRange = 1...8_760
    /// The gateway's `retention_hours` when it has none.
    static let defaultRetentionHours = 72

    /// The members that are the gateway's, whatever its apps.
    private static let gatewayMembers = [
        "listen", "database", "database_password_file", "database_connections", "workers", "lease_seconds", "http",
        "retention_hours", "drain_seconds", "metrics_listen", "access_log", "apps",
    ]

    /// Web Push delivery workers, one pool for every app: the most any app's `webpush` asks for;
    /// nil when no app has `webpush`.
    public let webPushWorkers: Int?

    /// What the operator should change, though the gateway serves as it is (every app's), in
    /// configuration order: logged at start and shown on the status page.
    public var warnings: [ConfigurationWarning] { appWarnings.map(\.warning) }

    /// ``warnings``, each with its app.
    var appWarnings: [(app: AppID, warning: ConfigurationWarning)] {
        apps.compactMap { app in app.webPush?.warning.map { (app.id, $0) } }
    }

    /// Every app's webhook endpoints, each with its app, in configuration order.
    var webhooks: [(app: AppID, settings: WebhookSettings)] {
        apps.flatMap { app in app.webhooks.map { (app.id, $0) } }
    }

    /// The app named `id`, if the configuration serves it.
    func app(_ id: AppID) -> AppConfiguration? { apps.first { $0.id == id } }

    /// Reads the configuration in `bytes`, found at `path`.
    /// - Throws: `GatewayError` naming the JSON path of what is wrong.
    public init(json bytes: [UInt8], path: String) throws(GatewayError) {
        let directory = path.contains("/") ? String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) : "."
        func resolve(_ file: String) -> String { file.hasPrefix("/") ? file : directory + "/" + file }
        let root: JSONObject
        do {
            guard let object = try JSONParser.parse(bytes).objectValue else {
                throw Self.invalid(.root, "must be an object")
            }
            root = object
        } catch let error as GatewayError {
            throw error
        } catch {
            throw GatewayError("\(path) is not JSON: \(error)")
        }
        try Self.refuseUnknown(root, Self.gatewayMembers + AppConfiguration.members, at: .root)
        (listenHost, listenPort) = try Self.address(try Self.string(root, "listen", at: .root), at: "listen")
        metricsListen =
            root["metrics_listen"] == nil
            ? nil : try Self.address(try Self.string(root, "metrics_listen", at: .root), at: "metrics_listen")
        retentionHours =
            try Self.integer(root, "retention_hours", in: Self.retentionRange) ?? Self.defaultRetentionHours
        drainSeconds = try Self.integer(root, "drain_seconds", in: 1...300) ?? 20
        switch root["access_log"] {
        case nil, .bool(false)?: accessLog = .off
        case .bool(true)?: accessLog = .requests
        case .string("all")?: accessLog = .all
        default: throw Self.invalid(JSONPath.root.member("access_log"), #"must be true, false or "all""#)
        }
        apps = try Self.apps(root, retentionHours: retentionHours, resolve: resolve)
        workers = try Self.integer(root, "workers", in: 1...64) ?? 4
        leaseSeconds = try Self.integer(root, "lease_seconds", in: 5...600) ?? 30
        http = try HTTPLimits(root["http"], at: JSONPath.root.member("http"))
        let webhookEndpoints = apps.reduce(0) { $0 + $1.webhooks.count }
        webPushWorkers = apps.compactMap { $0.webPush?.workers }.max()
        let connections =
            try Self.integer(root, "database_connections", in: 2...200) ?? workers + (webPushWorkers ?? 0)
            + webhookEndpoints + 4
        let passwordFile =
            root["database_password_file"] == nil
            ? nil : resolve(try Self.string(root, "database_password_file", at: .root))
        database = try GatewayDatabase.parse(
            try Self.string(root, "database", at: .root), passwordFile: passwordFile, connections: connections,
            resolve: resolve)
    }

    /// The apps of `root`: each member of `apps`, or the top level's as `default`, with
    /// `retentionHours` where they have none. A key named by two apps (the same team and key id)
    /// must be the same file, and a webhook endpoint's name is the gateway's (the metrics'
    /// `endpoint` label).
    private static func apps(_ root: JSONObject, retentionHours: Int, resolve: (String) -> String)
        throws(GatewayError) -> [AppConfiguration]
    {
        guard let value = root["apps"] else {
            return [try AppConfiguration(.default, root, at: .root, retentionHours: retentionHours, resolve: resolve)]
        }
        let path = JSONPath.root.member("apps")
        if let member = AppConfiguration.members.first(where: { root[$0] != nil }) {
            throw invalid(
                JSONPath.root.member(member),
                "belongs to an app: with apps, it is a member of each app that has it (apps.NAME.\(member))")
        }
        guard let object = value.objectValue, (1...maximumApps).contains(object.count) else {
            throw invalid(path, "must be an object of 1 to \(maximumApps) apps, each named by its member name")
        }
        var apps: [AppConfiguration] = []
        var keyFiles: [String: String] = [:]
        var endpoints: Set<String> = []
        for (name, member) in object {
            guard let id = AppID(name) else {
                throw invalid(
                    path.member(name), "is not an app name: 1 to 32 of a-z, 0-9 and -, a letter or digit first")
            }
            guard let appObject = member.objectValue else { throw invalid(path.member(name), "must be an object") }
            try refuseUnknown(
                appObject, AppConfiguration.members + AppConfiguration.inheritedMembers, at: path.member(name))
            let app = try AppConfiguration(
                id, appObject, at: path.member(name), retentionHours: retentionHours, resolve: resolve)
            for (index, key) in app.apns.keys.enumerated() {
                let identity = key.teamID + "." + key.keyID
                if let file = keyFiles[identity], file != key.authKeyFile {
                    throw invalid(
                        path.member(name).member("apns").member("keys").element(index),
                        "names key \(key.keyID) of team \(key.teamID) with another file than an app before it")
                }
                keyFiles[identity] = key.authKeyFile
            }
            for (index, webhook) in app.webhooks.enumerated() where !endpoints.insert(webhook.name).inserted {
                throw invalid(
                    path.member(name).member("webhooks").element(index).member("name"),
                    "is another app's endpoint's name: endpoint names are unique in the gateway")
            }
            apps.append(app)
        }
        return apps
    }

    /// The host and port of `ADDRESS:PORT` (an IPv6 address in brackets), the member `name`'s value.
    private static func address(_ text: String, at name: String) throws(GatewayError) -> (String, UInt16) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
            throw invalid(JSONPath.root.member(name), "must be ADDRESS:PORT, as 127.0.0.1:8080 or [::1]:8080")
        }
        let host = text[..<colon]
        return (host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : String(host), port)
    }

    static func string(_ object: JSONObject, _ name: String, at path: JSONPath) throws(GatewayError) -> String {
        guard let text = object[name]?.stringValue, !text.isEmpty else {
            throw invalid(path.member(name), "must be a non-empty string")
        }
        return text
    }

    /// The optional member `name` of `object` (at `path`), an integer within `range`; nil when absent.
    static func integer(
        _ object: JSONObject, _ name: String, in range: ClosedRange<Int>, at path: JSONPath = .root
    ) throws(GatewayError) -> Int? {
        guard let value = object[name] else { return nil }
        guard let integer = value.numberValue?.intValue, range.contains(integer) else {
            throw invalid(path.member(name), "must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return integer
    }

    /// The member `name` of `object` (at `path`) when there is one, which must be an object.
    static func optionalObject(_ object: JSONObject, _ name: String, at path: JSONPath) throws(GatewayError)
        -> JSONObject?
    {
        guard let value = object[name] else { return nil }
        guard let member = value.objectValue else { throw invalid(path.member(name), "must be an object") }
        return member
    }

    /// The member `name` of `object` (at `path`), `public_url` by default: where phones and senders reach the gateway,
    /// an https URL without a path, query or fragment (`https://push.example.com`).
    static func publicURL(_ object: JSONObject, _ name: String = "public_url", at path: JSONPath) throws(GatewayError)
        -> String
    {
        guard let url = object[name]?.stringValue, let parsed = try? HTTPSURL(url), parsed.target == "/",
            !url.hasSuffix("/"), !url.contains("?"), !url.contains("#")
        else {
            throw invalid(path.member(name), "must be an https URL without a path, as https://push.example.com")
        }
        return url
    }

    /// The member `name` of `object` (at `path`), a non-empty array of non-empty strings, each a
    /// `kind` (the words of the error: "file names", "bundle ids").
    static func strings(_ object: JSONObject, _ name: String, of kind: String, at path: JSONPath)
        throws(GatewayError) -> [String]
    {
        guard case .array(let values)? = object[name], !values.isEmpty,
            values.allSatisfy({ !($0.stringValue ?? "").isEmpty })
        else { throw invalid(path.member(name), "must be a non-empty array of \(kind)") }
        return values.compactMap(\.stringValue)
    }

    /// The optional member `name` of `object` (at `path`), `true` or `false`; `fallback` when absent.
    static func flag(_ object: JSONObject, _ name: String, at path: JSONPath, fallback: Bool = false)
        throws(GatewayError) -> Bool
    {
        switch object[name] {
        case nil: return fallback
        case .bool(let value)?: return value
        default: throw invalid(path.member(name), "must be true or false")
        }
    }

    /// The optional member `name` of `object` (at `path`), a file name (through `resolve`) or null;
    /// nil when absent or null.
    static func file(_ object: JSONObject, _ name: String, at path: JSONPath, resolve: (String) -> String)
        throws(GatewayError) -> String?
    {
        switch object[name] {
        case nil, .null?: return nil
        case .string(let file)?: return resolve(file)
        default: throw invalid(path.member(name), "must be a file name or null")
        }
    }

    /// The optional member `name` of `object` (at `path`), 1 to `maximum` characters (Unicode
    /// scalars) without control characters; `fallback` when absent.
    static func text(_ object: JSONObject, _ name: String, maximum: Int, fallback: String, at path: JSONPath)
        throws(GatewayError) -> String
    {
        guard let member = object[name] else { return fallback }
        guard let text = member.stringValue, (1...maximum).contains(text.unicodeScalars.count),
            !APNsHeaderText.hasControlCharacter(text)
        else { throw invalid(path.member(name), "must be 1 to \(maximum) characters without control characters") }
        return text
    }

    /// Refuses the first member of `object` (at `path`) not in `known`.
    static func refuseUnknown(_ object: JSONObject, _ known: [String], at path: JSONPath) throws(GatewayError) {
        if let name = object.firstMember(notIn: known) {
            throw invalid(path.member(name), "is not a configuration member (known: \(known.joined(separator: ", ")))")
        }
    }

    /// The error for the member at `path`.
    static func invalid(_ path: JSONPath, _ detail: String) -> GatewayError {
        GatewayError("configuration \(path) \(detail)")
    }
}
