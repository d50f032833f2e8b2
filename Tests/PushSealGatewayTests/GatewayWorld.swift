import Foundation
import PushSealCore
import PushSealDelivery
import PushSealGatewayModel
import PushSealGatewayStorage
import PushSealTestSupport
import Synchronization
import Testing

@testable import PushSealGateway

/// The stores every gateway test runs on.
enum GatewayBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    var testDescription: String { rawValue }

    /// The `database` member of a configuration for a new, empty database.
    func newDatabase() throws -> String {
        switch self {
        case .sqlite: "sqlite:gateway.db"
        case .postgres: try PostgresTestServer.shared.get().createDatabase()
        }
    }

    /// A store on `database` (as ``newDatabase()`` made it), in `directory`.
    func store(_ database: String, in directory: TemporaryDirectory) throws -> any GatewayStore {
        switch try GatewayDatabase.parse(database, passwordFile: nil, connections: 2, resolve: directory.file) {
        case .sqlite(let path): try SQLiteGatewayStore(path: path)
        case .postgres(let url, let passwordFile, let connections):
            PostgresGatewayStore(url: url, passwordFile: passwordFile, connections: connections)
        }
    }
}

/// A gateway running in this process over a temporary directory: its configuration, sender keys
/// (X25519 and P-256), a mock APNs, a database (an SQLite file, or one on the test PostgreSQL
/// server), and an admin token; with an HTTP client.
final class GatewayWorld: @unchecked Sendable {
    let directory = TemporaryDirectory()
    let apns: MockAPNs
    let gateway: Gateway
    let backend: GatewayBackend
    /// The configuration's `database`.
    let database: String
    let store: any GatewayStore
    /// A token with every scope.
    let adminToken: String
    /// The host part of the API's URLs.
    let host: String
    /// With `webPush`: two mock push services, each decrypting with the keys of its receiver in
    /// ``receivers`` (the second answers `slow` after 3 s); the gateway's VAPID key is `vapid.jwk`.
    let pushServices: [MockPushService]
    /// The receivers (a browser's keys) of ``pushServices``, in order.
    let receivers: [WebPushReceiver]
    /// Each push service's own directory (its certificate and log have fixed names).
    private let pushServiceDirectories = [TemporaryDirectory(), TemporaryDirectory()]
    /// The gateway's event log, line by line, as it would have gone to standard error.
    private let logLines = LoggedLines()

    /// - Parameters:
    ///   - settings: more configuration members, written into the object as they are
    ///     (`"max_deliveries_per_push": 3`).
    ///   - apnsHost: another APNs host than the mock (a hostile one), with its certificate.
    ///   - webPush: start ``pushServices`` and configure `webpush` to reach them (and the hosts of
    ///     `pushCertificates`, trusted too), local destinations allowed.
    ///   - pushServiceHosts: with `webPush`, `webpush.allowed_hosts` (any host when nil).
    ///   - vapidKey: make `vapid.jwk` for a `webpush` member of `settings` (`webPush` makes it anyway).
    ///   - otherApp: configure `apps`: `default` (what the other arguments describe) and this one,
    ///     with a key of its own (``otherKeyID``, known to the mock) and the topic
    ///     ``otherTopic``; `settings` then holds only the gateway's members.
    ///   - appSettings: more members of each app (at the top level without `otherApp`).
    ///   - otherKeyRefused: with `otherApp`, give that app a `.p8` the mock does not know, so
    ///     that APNs refuses its provider tokens (403 `InvalidProviderToken`).
    ///   - webPushWorkers: with `webPush`, `webpush.workers`.
    init(
        _ backend: GatewayBackend = .sqlite, contract: String? = nil, listen: String = "127.0.0.1:0",
        settings: String? = nil, apnsHost: (url: String, certificate: String)? = nil, webPush: Bool = false,
        pushCertificates: [String] = [], pushServiceHosts: [String]? = nil, vapidKey: Bool = false,
        otherApp: AppID? = nil, appSettings: String? = nil, otherKeyRefused: Bool = false, webPushWorkers: Int = 2
    ) throws {
        self.backend = backend
        database = try backend.newDatabase()
        host = listen.hasPrefix("[") ? "[::1]" : "127.0.0.1"
        apns = try MockAPNs(
            in: directory, otherKeys: otherApp == nil || otherKeyRefused ? [] : [(Self.otherKeyID, nil)])
        for suite in ["x25519", "p256"] {
            let made = try CLIRunner.run(
                ["keys", "generate", "--suite", suite, "--out", "sender-\(suite).jwk"], in: directory.path)
            #expect(made.status == 0, "\(made.errors)")
        }
        if webPush || vapidKey {
            let vapid = try CLIRunner.run(
                ["keys", "generate", "--suite", "p256", "--out", "vapid.jwk"], in: directory.path)
            #expect(vapid.status == 0, "\(vapid.errors)")
        }
        var webPushMember = ""
        if webPush {
            var keyFile = Array(try Data(contentsOf: URL(fileURLWithPath: directory.file("vapid.jwk"))))
            let vapidPublicKey = try VAPIDKey(wipingFileBytes: &keyFile).publicKey
            receivers = try (0..<2).map { _ in try WebPushReceiver.generate() }
            pushServices = try zip(receivers, pushServiceDirectories).map { receiver, directory in
                try MockPushService(
                    receiverFile: try directory.write("receiver.json", JSONWriter.string(.object(receiver.json))),
                    vapidPublicKey: vapidPublicKey, slowMilliseconds: 3_000, in: directory)
            }
            let certificates = try (pushServices.map(\.certificate) + pushCertificates).map {
                try String(contentsOfFile: $0, encoding: .utf8)
            }
            _ = try directory.write("push-services.pem", certificates.joined(separator: "\n"))
            let allowedHosts = pushServiceHosts.map {
                #", "allowed_hosts": \#(JSONWriter.string(.array($0.map { JSONValue.string($0) })))"#
            }
            webPushMember = """
                , "webpush": {"vapid_key_file": "vapid.jwk", "subject": "mailto:ops@example.com",
                              "allow_local_destinations": true, "ca_file": "push-services.pem",
                              "navigate": "https://shop.example.com/notifications", "workers": \(webPushWorkers)\(allowedHosts ?? "")}
                """
        } else {
            receivers = []
            pushServices = []
        }
        if let contract { _ = try directory.write("contract.json", contract) }
        let (hostURL, hostCertificate) = apnsHost ?? (apns.url, apns.certificate)
        let hosts =
            #""hosts": {"production": "\#(hostURL)", "sandbox": "\#(hostURL)"}, "ca_file": "\#(hostCertificate)""#
        let appMembers = """
            "sender_key_files": ["sender-x25519.jwk", "sender-p256.jwk"],
             "apns": {"auth_key_file": "\(apns.authKey)", "key_id": "\(MockAPNs.keyID)", "team_id": "\(MockAPNs.teamID)",
                      "topics": ["com.example.shop"], \(hosts)}\(contract == nil ? "" : #", "contract_file": "contract.json""#)\(webPushMember)\(appSettings.map { ", " + $0 } ?? "")
            """
        let gatewayMembers = #""listen": "\#(listen)", "database": "\#(database)", "workers": 2"#
        let configuration: String
        if let otherApp {
            let otherKey =
                otherKeyRefused
                ? try MockAPNs.makeAuthKey(directory.file("AuthKey_\(Self.otherKeyID).p8"))
                : try #require(apns.otherAuthKeys[Self.otherKeyID])
            configuration = """
                {\(gatewayMembers)\(settings.map { ", " + $0 } ?? ""),
                 "apps": {"default": {\(appMembers)},
                          "\(otherApp)": {"sender_key_files": ["sender-x25519.jwk"],
                                    "apns": {"auth_key_file": "\(otherKey)", "key_id": "\(Self.otherKeyID)",
                                             "team_id": "\(MockAPNs.teamID)", "topics": ["\(Self.otherTopic)"], \(hosts)}\(appSettings.map { ", " + $0 } ?? "")}}}
                """
        } else {
            configuration = "{\(gatewayMembers), \(appMembers)\(settings.map { ", " + $0 } ?? "")}"
        }
        let path = try directory.write("gateway.json", configuration)
        let parsed = try GatewayConfiguration(json: Array(configuration.utf8), path: path)
        gateway = try Gateway(
            configuration: parsed,
            log: EventLog { [logLines] line in logLines.append(String(decoding: line, as: UTF8.self)) })
        store = try backend.store(database, in: directory)
        adminToken = try Self.token(in: store, scopes: [.admin])
    }

    deinit {
        gateway.stop()
        apns.stop()
        for service in pushServices { service.stop() }
    }

    /// The lines the gateway logged so far for `event`, each parsed.
    func logged(_ event: String) -> [JSONObject] {
        logLines.all.compactMap { line in
            guard let object = try? JSONParser.parse(Array(line.utf8)).objectValue,
                object["event"] == .string(event)
            else { return nil }
            return object
        }
    }

    /// Every line the gateway logged so far, as written.
    var logText: String { logLines.all.joined() }

    /// Registers `id` of `user` as a Web Push subscription of receiver `service` (0 or 1) at an
    /// endpoint of that mock answering as `script` says; returns the answer.
    @discardableResult
    func registerSubscription(_ id: String, user: String, service: Int, script: String = "ok") throws
        -> GatewayHTTP.Answer
    {
        try registerSubscription(
            id, user: user, try receivers[service].subscription(endpoint: pushServices[service].endpoint(script, id)))
    }

    /// Registers `id` of `user` as `subscription`; returns the answer.
    @discardableResult
    func registerSubscription(_ id: String, user: String, _ subscription: WebPushSubscription) throws
        -> GatewayHTTP.Answer
    {
        let body = JSONObject([("user", .string(user)), ("subscription", .object(subscription.json))])
        return try request("PUT", "/v1/devices/\(id)", json: JSONWriter.string(.object(body)), token: adminToken)
    }

    /// The key id of the second app's `.p8`, with `otherApp`.
    static let otherKeyID = "KEY7654321"
    /// The second app's topic, with `otherApp`.
    static let otherTopic = "com.example.news"

    /// A new token of `app` with `scopes`, stored in `store`.
    static func token(in store: any GatewayStore, scopes: Set<AccessScope>, app: AppID = .default) throws -> String {
        let (text, record) = AccessTokens.make(scopes: scopes, in: app, at: GatewayClock.milliseconds())
        try store.addAccessToken(record)
        return text
    }

    /// Sends a request to the gateway and waits for the answer.
    func request(
        _ method: String, _ path: String, json body: String? = nil, token: String? = nil,
        contentType: String? = "application/json", rawBody: Data? = nil
    ) throws -> GatewayHTTP.Answer {
        try #require(
            try GatewayHTTP.send(
                method, "http://\(host):\(gateway.port)\(path)", body: rawBody ?? body.map { Data($0.utf8) },
                token: token, contentType: contentType))
    }

    /// Registers a device of `user` for `topic` whose key is a new store `store-<id>` made by the
    /// CLI, with the gateway's sender keys trusted, with `apiToken` (the admin token by default);
    /// returns the answer.
    @discardableResult
    func registerDevice(
        _ id: String, user: String, suite: String = "x25519", token deviceToken: String,
        topic: String = "com.example.shop", as apiToken: String? = nil
    ) throws -> GatewayHTTP.Answer {
        let store = "store-\(id)"
        _ = try CLIRunner.run(["keys", "init", "--store", store], in: directory.path)
        let rotated = try CLIRunner.run(["keys", "rotate", "--store", store, "--suite", suite], in: directory.path)
        let senderPublic = try CLIRunner.run(["keys", "public", "sender-\(suite).jwk"], in: directory.path)
        _ = try CLIRunner.run(
            ["keys", "import", "--store", store, "--sender"], input: Data(senderPublic.output.utf8), in: directory.path)
        let key = rotated.output.trimmingCharacters(in: .whitespacesAndNewlines)
        return try request(
            "PUT", "/v1/devices/\(id)",
            json:
                #"{"user":"\#(user)","token":"\#(deviceToken)","topic":"\#(topic)","environment":"production","key":\#(key)}"#,
            token: apiToken ?? adminToken)
    }

    /// Waits until `condition` holds, for at most `seconds`.
    func eventually(_ seconds: Double = 20, _ condition: () throws -> Bool) rethrows -> Bool {
        try PushSealGatewayTests.eventually(seconds, condition)
    }

    /// Whether every delivery of `app`'s push `id` has ended (none is queued).
    func hasEnded(push id: String, in app: AppID = .default) throws -> Bool {
        try store.push(id: id, in: app)?.deliveries.allSatisfy { $0.status != .queued } == true
    }

    /// A gateway with the operator's listener (`metrics_listen`) and one webhook endpoint,
    /// `backend`, that takes device events at an address nothing listens on, its secret written
    /// into `secrets`: what the metrics and the status page show of webhooks, none delivered.
    static func withWebhookEndpoint(secrets: TemporaryDirectory) throws -> GatewayWorld {
        _ = try GatewayWebhookTests.secretFile("whsec", in: secrets)
        return try GatewayWorld(
            settings: """
                "metrics_listen": "127.0.0.1:0",
                "webhooks": [{"name": "backend", "url": "https://127.0.0.1:9/hooks", "events": ["device.unregistered"],
                              "secret_files": ["\(secrets.file("whsec"))"], "allow_local_destinations": true}]
                """)
    }

    /// Makes the queued deliveries of push `id` due at once, through a connection of the test's own,
    /// as time passing would: a held or backed-off delivery is then tried without waiting its turn.
    func makeDueNow(push id: String) throws {
        let update = "UPDATE deliveries SET next_attempt_at = 0 WHERE push_id = '\(id)' AND status = 'queued'"
        switch backend {
        case .sqlite: try SQLiteDatabase(path: directory.file("gateway.db")).execute(update)
        case .postgres: try PostgresConnection(url: database, passwordFile: nil, timeoutSeconds: 5).execute(update)
        }
    }

    /// A device token whose first 4 digits make the mock answer its way (`0410`: 410, …).
    static func deviceToken(_ prefix: String, _ index: Int) -> String {
        prefix + String(repeating: "0", count: 60 - String(index).count - prefix.count) + String(index) + "abcd"
    }
}

/// The lines a gateway logged, kept in order from any thread.
final class LoggedLines: Sendable {
    private let lines = Mutex<[String]>([])

    /// Keeps `line`.
    func append(_ line: String) { lines.withLock { $0.append(line) } }

    /// Every line kept so far.
    var all: [String] { lines.withLock { $0 } }
}

/// Waits until `condition` holds, checking every 50 ms, for at most `seconds`; whether it held.
func eventually(_ seconds: Double = 20, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: 0.05)
    }
    return try condition()
}
