internal import PushSealCore
public import PushSealGatewayModel
public import PushSealGatewayStorage

/// `pushseal-gateway serve --config FILE`: a JSON object with these members (gateway-v1.md,
/// "Configuration"); relative paths are relative to the file. Unknown members are refused, so a
/// misspelt one never passes silently.
///
/// ```json
/// {"listen": "127.0.0.1:8080", "database": "sqlite:gateway.db",
///  "sender_key_files": ["backend-x25519.jwk"],
///  "apns": {"auth_key_file": "AuthKey_ABC123DEFG.p8", "key_id": "ABC123DEFG", "team_id": "DEF123GHIJ",
///           "topics": ["com.example.shop"]},
///  "workers": 4}
/// ```
///
/// `"database"` is `sqlite:FILE` or `postgres://USER@HOST:PORT/DATABASE`; with PostgreSQL,
/// `database_password_file` names a `.pgpass` file (else libpq reads `PGPASSFILE`) and
/// `database_connections` bounds the pool (2 to 200; the workers plus 4 by default). `"webpush"`
/// (``WebPushSettings``) adds Web Push subscriptions; `"webhooks"` (``WebhookSettings``) the
/// endpoints that hear of deliveries' ends and devices that left.
public struct GatewayConfiguration: Sendable {
    /// The IPv4 or IPv6 address to listen on (`listen` writes an IPv6 one in brackets).
    public let listenHost: String
    /// The port (0: any free one).
    public let listenPort: UInt16
    /// The database: a SQLite file, or PostgreSQL.
    public let database: GatewayDatabase
    /// The sender's private JWK files, at most one per suite.
    public let senderKeyFiles: [String]
    /// The APNs `.p8` file.
    public let authKeyFile: String
    /// The `.p8` key's id.
    public let keyID: String
    /// The Apple team id.
    public let teamID: String
    /// The bundle ids devices may register for.
    public let topics: [String]
    /// The APNs host of each environment.
    public let hosts: [String: String]
    /// Certificates to trust for APNs instead of the system's (a mock, in tests).
    public let caFile: String?
    /// Delivery workers.
    public let workers: Int
    /// A payload contract every push must satisfy (contract-v1.md), if any.
    public let contractFile: String?
    /// How long a worker's claim on a batch lasts without renewal: after a crash, its deliveries
    /// are taken up again this long after the last renewal (5 to 600 s; 30 by default).
    public let leaseSeconds: Int
    /// The most deliveries one push may make once its audience is resolved (1 to 100,000; 5,000
    /// by default); a push that would make more is refused with 422 `too-many-deliveries`.
    public let maximumDeliveriesPerPush: Int
    /// The HTTP server's limits on connections and on slow requests.
    public let http: HTTPLimits
    /// How Web Push subscriptions are reached; nil when the gateway serves APNs devices only.
    public let webPush: WebPushSettings?
    /// Where `/metrics`, `/status`, `/healthz` and `/readyz` are served apart from the API, if
    /// anywhere (then the API's listener serves neither `/metrics` nor `/status`).
    public let metricsListen: (host: String, port: UInt16)?
    /// How long the record of an ended delivery is kept, in hours (1 to 8,760; 72).
    public let retentionHours: Int
    /// How long a stop waits for deliveries in flight, in seconds (1 to 300; 20).
    public let drainSeconds: Int
    /// Which requests are logged (`request` lines).
    public let accessLog: AccessLogMode
    /// The title and body of `POST /v1/devices/{id}/test`'s notification.
    public let testNotification: (title: String, body: String)
    /// The gateway as a Web Push service for its APNs devices (gateway-v1.md, "Web Push in");
    /// nil when it serves no endpoint.
    public let relay: RelaySettings?
    /// Each token's rates (gateway-v1.md, "Limits"); none by default.
    public let rateLimits: RateLimitSettings
    /// The endpoints that receive events (gateway-v1.md, "Webhooks"); none by default.
    public let webhooks: [WebhookSettings]

    /// The test notification without `test_push` in the configuration.
    public static let defaultTestNotification = (
        title: "PushSeal test", body: "This device receives end-to-end encrypted pushes."
    )

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
        try Self.refuseUnknown(
            root,
            [
                "listen", "database", "database_password_file", "database_connections", "sender_key_files", "apns",
                "workers", "contract_file", "lease_seconds", "max_deliveries_per_push", "http", "webpush",
                "retention_hours", "drain_seconds", "metrics_listen", "access_log", "test_push", "webhooks", "limits",
                "relay",
            ], at: .root)
        (listenHost, listenPort) = try Self.address(try Self.string(root, "listen", at: .root), at: "listen")
        metricsListen =
            root["metrics_listen"] == nil
            ? nil : try Self.address(try Self.string(root, "metrics_listen", at: .root), at: "metrics_listen")
        retentionHours = try Self.integer(root, "retention_hours", in: 1...8_760) ?? 72
        drainSeconds = try Self.integer(root, "drain_seconds", in: 1...300) ?? 20
        testNotification = try Self.testNotification(root["test_push"])
        rateLimits = try RateLimitSettings(root["limits"], at: JSONPath.root.member("limits"))
        if let value = root["relay"] {
            guard let object = value.objectValue else {
                throw Self.invalid(JSONPath.root.member("relay"), "must be an object")
            }
            relay = try RelaySettings(object, at: JSONPath.root.member("relay"))
        } else {
            relay = nil
        }
        webhooks = try WebhookSettings.list(root["webhooks"], at: JSONPath.root.member("webhooks"), resolve: resolve)
        switch root["access_log"] {
        case nil, .bool(false)?: accessLog = .off
        case .bool(true)?: accessLog = .requests
        case .string("all")?: accessLog = .all
        default: throw Self.invalid(JSONPath.root.member("access_log"), #"must be true, false or "all""#)
        }
        guard case .array(let senders)? = root["sender_key_files"], !senders.isEmpty,
            senders.allSatisfy({ $0.stringValue != nil })
        else {
            throw Self.invalid(JSONPath.root.member("sender_key_files"), "must be a non-empty array of file names")
        }
        senderKeyFiles = senders.compactMap(\.stringValue).map(resolve)
        let apnsPath = JSONPath.root.member("apns")
        guard let apns = root["apns"]?.objectValue else { throw Self.invalid(apnsPath, "must be an object") }
        try Self.refuseUnknown(
            apns, ["auth_key_file", "key_id", "team_id", "topics", "hosts", "ca_file"], at: apnsPath)
        authKeyFile = resolve(try Self.string(apns, "auth_key_file", at: apnsPath))
        keyID = try Self.string(apns, "key_id", at: apnsPath)
        teamID = try Self.string(apns, "team_id", at: apnsPath)
        guard case .array(let topicValues)? = apns["topics"], !topicValues.isEmpty,
            topicValues.allSatisfy({ $0.stringValue != nil })
        else { throw Self.invalid(apnsPath.member("topics"), "must be a non-empty array of bundle ids") }
        topics = topicValues.compactMap(\.stringValue)
        var hosts = ["production": "https://api.push.apple.com", "sandbox": "https://api.sandbox.push.apple.com"]
        if let given = apns["hosts"] {
            guard let object = given.objectValue else {
                throw Self.invalid(apnsPath.member("hosts"), "must be an object")
            }
            try Self.refuseUnknown(object, ["production", "sandbox"], at: apnsPath.member("hosts"))
            for (name, value) in object {
                guard let url = value.stringValue, url.hasPrefix("https://") else {
                    throw Self.invalid(apnsPath.member("hosts").member(name), "must be an https:// URL")
                }
                hosts[name] = url
            }
        }
        self.hosts = hosts
        caFile = try Self.file(apns, "ca_file", at: apnsPath, resolve: resolve)
        workers = try Self.integer(root, "workers", in: 1...64) ?? 4
        leaseSeconds = try Self.integer(root, "lease_seconds", in: 5...600) ?? 30
        maximumDeliveriesPerPush = try Self.integer(root, "max_deliveries_per_push", in: 1...100_000) ?? 5_000
        http = try HTTPLimits(root["http"], at: JSONPath.root.member("http"))
        if let value = root["webpush"] {
            guard let object = value.objectValue else {
                throw Self.invalid(JSONPath.root.member("webpush"), "must be an object")
            }
            webPush = try WebPushSettings(object, at: JSONPath.root.member("webpush"), resolve: resolve)
        } else {
            webPush = nil
        }
        contractFile = root["contract_file"] == nil ? nil : resolve(try Self.string(root, "contract_file", at: .root))
        let connections =
            try Self.integer(root, "database_connections", in: 2...200) ?? workers + (webPush?.workers ?? 0)
            + webhooks.count + 4
        let passwordFile =
            root["database_password_file"] == nil
            ? nil : resolve(try Self.string(root, "database_password_file", at: .root))
        database = try GatewayDatabase.parse(
            try Self.string(root, "database", at: .root), passwordFile: passwordFile, connections: connections,
            resolve: resolve)
    }

    /// The `test_push` member `value`: `{"title", "body"}`, each optional (1 to 256 and 1 to 1,024
    /// characters without control characters); the defaults where absent.
    private static func testNotification(_ value: JSONValue?) throws(GatewayError) -> (title: String, body: String) {
        guard let value else { return defaultTestNotification }
        let path = JSONPath.root.member("test_push")
        guard let object = value.objectValue else { throw invalid(path, "must be an object") }
        try refuseUnknown(object, ["title", "body"], at: path)
        return (
            try text(object, "title", maximum: 256, fallback: defaultTestNotification.title, at: path),
            try text(object, "body", maximum: 1_024, fallback: defaultTestNotification.body, at: path)
        )
    }

    /// The host and port of `ADDRESS:PORT` (an IPv6 address in brackets), the member `name`'s value.
    private static func address(_ text: String, at name: String) throws(GatewayError) -> (String, UInt16) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
            throw invalid(JSONPath.root.member(name), "must be ADDRESS:PORT, as 127.0.0.1:8080 or [::1]:8080")
        }
        let host = text[..<colon]
        return (host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : String(host), port)
    }

    private static func string(_ object: JSONObject, _ name: String, at path: JSONPath) throws(GatewayError) -> String {
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
