import Foundation
import PushSealCore
import PushSealGatewayModel
import PushSealGatewayStorage
import PushSealPrimitives
import PushSealTestSupport
import Testing

@testable import PushSealGateway

/// What an operator relies on (gateway-v1.md, "Operations", "Retention", "Backups and restores",
/// "Stopping", "Status page", "Deployment"): the command line, metrics with closed label sets,
/// logs, retention, backups, a bounded drain, and the files in `deploy/`.
@Suite("pushseal-gateway operations", .serialized)
struct GatewayOperationsTests {
    static let gateway = GatewayProcessWorld.executable
    static let alert = #"{"aps":{"alert":{"title":"Order 1042","body":"Shipped"}}}"#

    /// Runs `pushseal-gateway arguments…` in `directory`.
    static func run(_ arguments: [String], in directory: TemporaryDirectory) throws -> CLIRunner.Result {
        try CLIRunner.run(executable: gateway, arguments, input: Data(), in: directory.path)
    }

    @Test(
        "a 1.3 configuration, every member 1.3 documented and none of 1.4's, starts and serves; its webpush without navigate keeps 1.3's content, with a warning at start and on the status page"
    )
    func configurationOf13Starts() throws {
        let world = try GatewayProcessWorld(
            extra: #"""
                , "workers": 2, "lease_seconds": 30, "max_deliveries_per_push": 500, "retention_hours": 48,
                "drain_seconds": 5, "access_log": true, "test_push": {"title": "Test", "body": "It works"},
                "limits": {"requests_per_second": 100, "requests_burst": 200},
                "relay": {"public_url": "https://push.example.com"},
                "http": {"connections": 512, "connections_per_address": 128, "head_seconds": 10, "body_seconds": 30},
                "webpush": {"vapid_key_file": "vapid.jwk", "subject": "mailto:ops@example.com", "workers": 1}
                """#)
        let vapid = try CLIRunner.run(
            ["keys", "generate", "--suite", "p256", "--out", "vapid.jwk"], in: world.directory.path)
        #expect(vapid.status == 0, "\(vapid.errors)")
        try world.start()
        #expect(try world.registerDevice() == 201)
        let pushed = try GatewayHTTP.send(
            "POST", "http://127.0.0.1:\(world.port)/v1/pushes",
            body: Data(#"{"to":{"user":"u"},"payload":\#(Self.alert)}"#.utf8),
            token: world.token)
        #expect(pushed?.status == 202, "\(pushed.map { String(decoding: $0.body, as: UTF8.self) } ?? "")")
        #expect(eventually(10) { world.apns.requests().count == 1 }, "it serves as 1.3 did")
        let warnings = world.logLines().filter { $0["event"] == .string("configuration-warning") }
        #expect(
            warnings.count == 1 && warnings.first?["path"] == .string("$.webpush.navigate")
                && warnings.first?["level"] == .string("warning"), "\(warnings)")
        let status = try #require(
            try GatewayHTTP.send("GET", "http://127.0.0.1:\(world.port)/v1/status", token: world.token))
        let attention = String(decoding: status.body, as: UTF8.self)
        #expect(status.status == 200 && attention.contains("$.webpush.navigate is missing"), "\(attention)")
    }

    @Test("help and version print and exit 0; migrate says what it did; a bad command line names its fault")
    func commandLine() throws {
        let directory = TemporaryDirectory()
        for words in [["--help"], ["help"], ["-h"]] {
            let help = try Self.run(words, in: directory)
            #expect(help.status == 0 && help.output.contains("usage: pushseal-gateway serve --config FILE"))
            #expect(help.errors.isEmpty)
        }
        for words in [["--version"], ["version"]] {
            let version = try Self.run(words, in: directory)
            #expect(
                version.status == 0 && version.output.hasPrefix("pushseal-gateway \(GatewayVersion.number) (API v1"))
        }
        let world = try GatewayProcessWorld()
        let first = try CLIRunner.run(
            executable: Self.gateway, ["migrate", "--config", "gateway.json"], input: Data(), in: world.directory.path)
        #expect(first.output.contains("is at schema \(GatewaySchema.version) already"), "\(first.output)")
        let fresh = try world.directory.write(
            "fresh.json",
            String(
                decoding: try Data(contentsOf: URL(fileURLWithPath: world.directory.file("gateway.json"))),
                as: UTF8.self
            ).replacingOccurrences(of: "sqlite:gateway.db", with: "sqlite:fresh.db"))
        let created = try CLIRunner.run(
            executable: Self.gateway, ["migrate", "--config", fresh], input: Data(), in: world.directory.path)
        #expect(
            created.status == 0 && created.output.contains("created at schema \(GatewaySchema.version)"))
        let cases: [([String], String)] = [
            (["serve"], "serve needs --config FILE"), ([], "no command given"),
            (["serve", "--config"], "--config needs a value"), (["serve", "-c", "x"], "-c is not an option"),
            (["frobnicate", "--config", "gateway.json"], "unknown command frobnicate"),
        ]
        for (words, message) in cases {
            let answer = try CLIRunner.run(executable: Self.gateway, words, input: Data(), in: world.directory.path)
            #expect(answer.status == 2 && answer.errors.contains(message), "\(words): \(answer.errors)")
        }
    }

    @Test("each command has its own help, and every command says what it did or what is wrong")
    func commandsSpeak() throws {
        let directory = TemporaryDirectory()
        for words in [["help", "token"], ["token", "--help"], ["token", "revoke", "-h"]] {
            let help = try Self.run(words, in: directory)
            #expect(help.status == 0 && help.output.contains("pushseal-gateway token revoke --config FILE --id ID"))
            #expect(
                help.output.contains("/usr/share/doc/pushseal-gateway/") && !help.output.contains("migrate --config"))
        }
        let whole = try Self.run(["help"], in: directory)
        #expect(whole.output.contains("pushseal-gateway help COMMAND") && whole.output.contains("migrate --config"))
        let unknown = try Self.run(["help", "frobnicate"], in: directory)
        #expect(unknown.status == 2 && unknown.errors.contains("no command is named frobnicate"))
        let secret = try Self.run(["webhook", "secret", "--config", "gateway.json"], in: directory)
        #expect(secret.status == 2 && secret.errors.contains("webhook secret takes no option"), "\(secret.errors)")

        let world = try GatewayProcessWorld()
        let created = try CLIRunner.run(
            executable: Self.gateway, ["token", "create", "--config", "gateway.json", "--scope", "read"], input: Data(),
            in: world.directory.path)
        let id = try #require(AccessTokens.parse(created.output.trimmingCharacters(in: .whitespacesAndNewlines))?.id)
        let revoked = try CLIRunner.run(
            executable: Self.gateway, ["token", "revoke", "--config", "gateway.json", "--id", id], input: Data(),
            in: world.directory.path)
        #expect(revoked.status == 0 && revoked.output.contains("token \(id) revoked"), "\(revoked.output)")
    }

    @Test("a stored reason reads back as the typed reason it was; its label is from a closed set, never its words")
    func reasonLabels() {
        let reasons: [(DeliveryReason, text: String, label: String)] = [
            (.apns("BadDeviceToken"), "BadDeviceToken", "BadDeviceToken"),
            (.gateway(.pushServiceBusy), "PushServiceBusy", "PushServiceBusy"),
            (.gateway(.deviceDeleted), "DeviceDeleted", "DeviceDeleted"),
            (.pushService(status: 413, words: "Payload Too Large"), "HTTP 413: Payload Too Large", "http-413"),
            (.pushService(status: 418, words: "teapot"), "HTTP 418: teapot", "http-4xx"),
            (.pushService(status: 599, words: nil), "HTTP 599", "http-5xx"),
            (.transport(.timeout, detail: "no answer in 10 seconds"), "timeout: no answer in 10 seconds", "timeout"),
            (.transport(.tls, detail: "certificate verify failed"), "tls: certificate verify failed", "tls"),
            (
                .transport(.localDestination, detail: "h.example: local"), "local-destination: h.example: local",
                "local-destination"
            ),
            (.transport(.protocolViolation, detail: "no HTTP/2"), "protocol: no HTTP/2", "protocol"),
            (.unknown("🙂 anything else"), "🙂 anything else", "unknown"),
            (.unknown("NewReasonOfApple"), "NewReasonOfApple", "unknown"),
        ]
        for (reason, text, label) in reasons {
            #expect(reason.text == text)
            #expect(DeliveryReason(text: text) == reason, "\(text) reads back")
            #expect(reason.label == label, "\(text)")
        }
        // Words that only look like a form are not read as it: no substring decides a label.
        for text in ["HTTP 41", "HTTP 413teapot", "HTTP +41: x", "timeout:no space", "Timeout: x", "the tls failed"] {
            #expect(DeliveryReason(text: text) == .unknown(text), "\(text)")
        }
        for kind in TransportFailure.allCases {
            #expect(DeliveryReason(text: "\(kind.rawValue): why").label == kind.rawValue)
        }
        #expect(OutcomeLabel(.failed, storedReason: nil).reason == "")
        #expect(OutcomeLabel(.failed, storedReason: "").reason == "")
    }

    @Test("the log's times are RFC 3339 in UTC, every field zero-padded, to the millisecond")
    func timestamps() {
        #expect(RFC3339.text(0) == "1970-01-01T00:00:00.000Z")
        #expect(RFC3339.text(981_173_106_007) == "2001-02-03T04:05:06.007Z")
        #expect(RFC3339.text(1_796_293_772_714) == "2026-12-03T10:29:32.714Z")
        #expect(RFC3339.text(253_402_300_799_999) == "9999-12-31T23:59:59.999Z")
        // Leap days by the Gregorian rules (2000 has one, 2100 none), and times before the epoch.
        #expect(RFC3339.text(951_868_799_999) == "2000-02-29T23:59:59.999Z")
        #expect(RFC3339.text(4_107_499_200_000) == "2100-02-28T12:00:00.000Z")
        #expect(RFC3339.text(4_107_542_400_000) == "2100-03-01T00:00:00.000Z")
        #expect(RFC3339.text(1_735_689_599_000) == "2024-12-31T23:59:59.000Z")
        #expect(RFC3339.text(-1) == "1969-12-31T23:59:59.999Z")
        #expect(RFC3339.text(-11_670_912_000_000) == "1600-03-01T00:00:00.000Z")
    }

    @Test(
        "metrics: build info, per-route requests and durations, closed reasons; metrics_listen keeps them off the API; the dashboard and alerts name only real series"
    )
    func metrics() throws {
        let world = try GatewayWorld(settings: #""metrics_listen": "127.0.0.1:0""#)
        try world.registerDevice("phone", user: "u1", token: GatewayWorld.deviceToken("00aa", 1))
        try world.registerDevice("gone", user: "u1", token: GatewayWorld.deviceToken("0411", 2))
        let push = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":\#(Self.alert)}"#, token: world.adminToken)
        let id = try #require(push.json?["id"]?.stringValue)
        #expect(try world.eventually { try world.hasEnded(push: id) })
        let operations = try #require(world.gateway.operationsPort)
        func get(_ path: String, port: UInt16) throws -> GatewayHTTP.Answer {
            try #require(try GatewayHTTP.send("GET", "http://127.0.0.1:\(port)\(path)", body: nil, token: nil))
        }
        #expect(try get("/metrics", port: world.gateway.port).status == 404, "not on the API's listener")
        #expect(try get("/status", port: world.gateway.port).status == 404)
        #expect(try get("/readyz", port: world.gateway.port).status == 200, "load balancers still probe it")
        #expect(try get("/v1/pushes/\(id)", port: operations).status == 404, "the API is not on the operator's")
        let text = String(decoding: try get("/metrics", port: operations).body, as: UTF8.self)
        #expect(text.contains(#"pushseal_gateway_build_info{version="\#(GatewayVersion.number)",api="v1"} 1"#))
        #expect(
            text.contains(
                #"pushseal_gateway_http_requests_total{method="PUT",route="/v1/devices/{device_id}",status="201"} 2"#))
        #expect(text.contains(#"pushseal_gateway_http_request_duration_seconds_count{route="/v1/pushes"} 1"#))
        #expect(
            text.contains(
                #"pushseal_gateway_deliveries_total{app="default",status="unregistered",reason="Unregistered"} 1"#))
        #expect(text.contains(#"pushseal_gateway_deliveries_total{app="default",status="sent",reason=""} 1"#))
        #expect(text.contains("pushseal_gateway_queue_oldest_seconds 0"))
        #expect(text.contains(#"pushseal_gateway_sender_agreements_total{source="computed"} 2"#), "one per device")
        #expect(text.contains(#"pushseal_gateway_sender_agreements_total{source="reused"} 0"#))
        #expect(text.contains("pushseal_gateway_sender_agreements_held 2"))
        // The push's two deliveries came in a claim short of the 25 asked for; no claim was full.
        let someClaims = text.firstMatch(of: /pushseal_gateway_claims_total\{kind="apns",found="some"\} (\d+)/)
        #expect((someClaims.flatMap { Int($0.output.1) } ?? 0) >= 1, "\(text)")
        #expect(text.contains(#"pushseal_gateway_claims_total{kind="apns",found="full"} 0"#))
        #expect(text.contains(#"pushseal_gateway_claims_total{kind="webpush",found="some"} 0"#))
        let reasons = text.matches(
            of: /pushseal_gateway_deliveries_total\{app="default",status="[a-z]+",reason="([^"]*)"\}/
        ).map {
            String($0.output.1)
        }
        #expect(reasons.count == 2)
        #expect(
            reasons.allSatisfy { DeliveryReason.apnsReasons.contains($0) || $0.isEmpty || $0.hasPrefix("http-") },
            "\(reasons)")

        // Every series the dashboard and the alert rules use is one the gateway exports.
        let exported = Set(
            text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map { String($0.split(separator: " ")[2]) })
        for file in ["deploy/grafana-dashboard.json", "deploy/prometheus-alerts.yml"] {
            let contents = try String(
                contentsOf: TestVectors.packageRoot.appendingPathComponent(file), encoding: .utf8)
            let names = contents.matches(of: /pushseal_gateway_[a-z_]+/).map { match in
                var name = String(match.output)
                for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) && !exported.contains(name) {
                    name.removeLast(suffix.count)
                }
                return name
            }
            #expect(!names.isEmpty)
            for name in Set(names) { #expect(exported.contains(name), "\(file) uses \(name), which is not exported") }
        }
        // And every family exported is one gateway-v1.md's table explains.
        let contract = try String(
            contentsOf: TestVectors.packageRoot.appendingPathComponent("docs/gateway-v1.md"), encoding: .utf8)
        let rows = contract.split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("| `") }
        let undocumented = exported.sorted().filter { name in
            !rows.contains { $0.contains("`\(name)`") || $0.contains("`\(name){") }
        }
        #expect(undocumented.isEmpty, "gateway-v1.md's metrics table has no row for \(undocumented)")
    }

    @Test(
        "an ended delivery keeps no body; its record and its push go after the retention time, and the idempotency key with them; queued ones stay",
        arguments: GatewayBackend.allCases)
    func retention(_ backend: GatewayBackend) throws {
        let world = try GatewayWorld(backend)
        try world.registerDevice("phone", user: "u1", token: GatewayWorld.deviceToken("00aa", 1))
        try world.registerDevice("busy", user: "u2", token: GatewayWorld.deviceToken("5003", 1))
        let first = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":\#(Self.alert),"idempotency_key":"k-1"}"#,
            token: world.adminToken)
        let id = try #require(first.json?["id"]?.stringValue)
        let waiting = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u2"},"payload":\#(Self.alert)}"#, token: world.adminToken)
        let waitingID = try #require(waiting.json?["id"]?.stringValue)
        #expect(try world.eventually { try world.store.push(id: id, in: .default)?.deliveries.first?.status == .sent })
        #expect(
            try world.eventually {
                try world.store.push(id: waitingID, in: .default)?.deliveries.first?.attempts ?? 0 > 0
            })
        let lengths = try Self.bodyLengths(world)
        #expect(lengths[id] == 0, "the sent delivery's body is gone at once")
        #expect((lengths[waitingID] ?? 0) > 0, "a queued delivery keeps its body")

        let metrics = Metrics()
        let upkeep = Housekeeping(
            store: world.store, serving: [Housekeeping.ServedApp(id: .default, retentionHours: 1, webPush: false)],
            retentionHours: 1, metrics: metrics,
            log: EventLog(enabled: false))
        let now = GatewayClock.milliseconds()
        #expect(upkeep.sweep(now: now) == RetentionSweep(), "nothing is older than an hour yet")
        let swept = upkeep.sweep(now: now + 2 * 3_600_000)
        #expect(swept.deliveries == 1 && swept.pushes == 1, "\(swept)")
        #expect(try world.store.push(id: id, in: .default) == nil)
        #expect(
            try world.store.push(id: waitingID, in: .default)?.deliveries.first?.status == .queued,
            "queued deliveries stay")
        let exposition = metrics.exposition(nil, providerTokens: 0, now: now)
        #expect(exposition.contains(#"pushseal_gateway_retention_deleted_total{table="deliveries"} 1"#))
        #expect(try world.request("GET", "/v1/pushes/\(id)", token: world.adminToken).status == 404)
        let again = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":\#(Self.alert),"idempotency_key":"k-1"}"#,
            token: world.adminToken)
        #expect(again.json?["repeated"] == nil && again.json?["id"]?.stringValue != id, "the key expired with its push")
    }

    /// The length of each delivery's stored body, by push id, read from the database itself.
    static func bodyLengths(_ world: GatewayWorld) throws -> [String: Int] {
        let rows: [[DatabaseValue]]
        switch world.store {
        case is SQLiteGatewayStore:
            rows = try SQLiteDatabase(path: world.directory.file("gateway.db")).read(
                "SELECT push_id, length(body) FROM deliveries")
        case let store as PostgresGatewayStore:
            rows = try store.pool.withConnection { try $0.query("SELECT push_id, length(body) FROM deliveries") }
        default: rows = []
        }
        return Dictionary(rows.map { ($0[0].text ?? "", Int($0[1].integer ?? -1)) }, uniquingKeysWith: { $1 })
    }
}

/// Access tokens as an operator manages them (gateway-v1.md, "Running it", "Authentication").
@Suite("pushseal-gateway access tokens")
struct GatewayAccessTokenTests {
    @Test("a token has a label and an expiry, token list shows them and its last use; an expired token is 401")
    func labelsExpiryAndLastUse() throws {
        let world = try GatewayProcessWorld()
        let made = try CLIRunner.run(
            executable: GatewayProcessWorld.executable,
            [
                "token", "create", "--config", "gateway.json", "--scope", "read", "--label", "billing backend",
                "--expires-days", "30",
            ], input: Data(), in: world.directory.path)
        #expect(made.status == 0, "\(made.errors)")
        let token = made.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let bad = try CLIRunner.run(
            executable: GatewayProcessWorld.executable,
            ["token", "create", "--config", "gateway.json", "--scope", "read", "--expires-days", "0"], input: Data(),
            in: world.directory.path)
        #expect(bad.status == 2 && bad.errors.contains("--expires-days must be a whole number of days from 1 to 3650"))
        try world.start()
        let answer = try GatewayHTTP.send(
            "GET", "http://127.0.0.1:\(world.port)/v1/devices/none", body: nil, token: token)
        #expect(answer?.status == 404, "accepted: the device is simply unknown")
        world.kill(SIGTERM)
        let listed = try CLIRunner.run(
            executable: GatewayProcessWorld.executable, ["token", "list", "--config", "gateway.json"], input: Data(),
            in: world.directory.path)
        let (id, secret) = try #require(AccessTokens.parse(token))
        let line = try #require(
            listed.output.split(separator: "\n").compactMap { try? JSONParser.parse(Array($0.utf8)).objectValue }
                .first { $0["id"] == .string(id) })
        #expect(line["label"] == .string("billing backend"))
        let created = try #require(line["created_at"]?.numberValue?.intValue)
        #expect(line["expires_at"]?.numberValue?.intValue == created + 30 * 86_400_000)
        #expect((line["last_used_at"]?.numberValue?.intValue ?? 0) >= created, "its last use is recorded")
        #expect(!listed.output.contains(Base64URL.encode(secret)), "never the secret")

        let store = try SQLiteGatewayStore(path: world.directory.file("gateway.db"))
        let now = GatewayClock.milliseconds()
        let (expired, record) = AccessTokens.make(scopes: [.admin], at: now - 10_000, expiresAt: now - 1)
        try store.addAccessToken(record)
        try world.start()
        let refused = try GatewayHTTP.send(
            "GET", "http://127.0.0.1:\(world.port)/v1/devices/none", body: nil, token: expired)
        #expect(refused?.status == 401, "an expired token is refused as an unknown one")
        world.kill(SIGTERM)
    }
}

/// `GET /v1/devices` (gateway-v1.md, "Devices that left").
@Suite("pushseal-gateway devices that left", .serialized)
struct GatewayDeviceListingTests {
    @Test(
        "unregistered devices come page by page in the order they left, with since and a cursor; bad parameters are named",
        arguments: GatewayBackend.allCases)
    func devicesThatLeft(_ backend: GatewayBackend) throws {
        let world = try GatewayWorld(backend)
        for index in 1...2 {
            try world.registerDevice("a\(index)", user: "u1", token: GatewayWorld.deviceToken("00aa", index))
        }
        for index in 1...3 {
            try world.registerDevice("g\(index)", user: "u1", token: GatewayWorld.deviceToken("0411", index))
        }
        _ = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":{"aps":{"alert":"hi"}}}"#,
            token: world.adminToken)
        #expect(try world.eventually { try world.store.statistics().unregisteredDevices == 3 })

        func page(_ query: String) throws -> (ids: [String], cursor: String?, status: Int) {
            let answer = try world.request("GET", "/v1/devices?\(query)", token: world.adminToken)
            let ids = answer.json?["devices"]?.arrayValue?.compactMap { $0.objectValue?["id"]?.stringValue } ?? []
            return (ids, answer.json?["next_cursor"]?.stringValue, answer.status)
        }
        let first = try page("state=unregistered&limit=2")
        #expect(first.status == 200 && first.ids.count == 2 && first.cursor != nil)
        let second = try page("state=unregistered&limit=2&cursor=\(first.cursor ?? "")")
        #expect(second.ids.count == 1 && second.cursor == nil, "the last page has no cursor")
        #expect(Set(first.ids + second.ids) == ["g1", "g2", "g3"])
        let left = try (first.ids + second.ids).map {
            try #require(try world.store.device(id: $0, in: .default)?.unregisteredAt)
        }
        #expect(left == left.sorted(), "in the order they left")
        let latest = try #require(left.max())
        #expect(try page("state=unregistered&since=\(latest + 1)").ids.isEmpty)
        #expect(try page("state=unregistered&since=\(latest)").ids.count >= 1)
        #expect(try page("state=active").ids == ["a1", "a2"])
        #expect(try page("").ids == ["a1", "a2", "g1", "g2", "g3"], "every device, by id")

        for (query, parameter) in [
            ("state=gone", "state"), ("limit=0", "limit"), ("limit=501", "limit"), ("since=5", "since"),
            ("state=unregistered&cursor=bm9wZQ", "cursor"), ("state=active&cursor=\(first.cursor ?? "")", "cursor"),
            ("colour=red", "colour"),
        ] {
            let answer = try world.request("GET", "/v1/devices?\(query)", token: world.adminToken)
            #expect(
                answer.status == 400
                    && answer.json?["error"]?.objectValue?["message"]?.stringValue?.hasPrefix(
                        "query parameter \(parameter) ") == true,
                "\(query)")
        }
        let registrar = try GatewayWorld.token(in: world.store, scopes: [.devices])
        #expect(try world.request("GET", "/v1/devices", token: registrar).status == 403)
    }

    @Test(
        "a push's deliveries and a user's devices come page by page, with counts by status; bad parameters are named",
        arguments: GatewayBackend.allCases)
    func pages(_ backend: GatewayBackend) throws {
        let world = try GatewayWorld(backend)
        for index in 1...3 {
            try world.registerDevice("a\(index)", user: "u1", token: GatewayWorld.deviceToken("00aa", index))
        }
        try world.registerDevice("g1", user: "u1", token: GatewayWorld.deviceToken("0411", 4))
        try world.registerDevice("other", user: "u2", token: GatewayWorld.deviceToken("00aa", 5))
        let answer = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":{"aps":{"alert":"hi"}}}"#,
            token: world.adminToken)
        let id = try #require(answer.json?["id"]?.stringValue)
        #expect(try world.eventually { try world.hasEnded(push: id) })

        func page(_ path: String) throws -> (ids: [String], cursor: String?, json: JSONObject?) {
            let answer = try world.request("GET", path, token: world.adminToken)
            #expect(answer.status == 200, "\(path)")
            let ids =
                answer.json?["deliveries"]?.arrayValue?.compactMap { $0.objectValue?["device"]?.stringValue }
                ?? answer.json?["devices"]?.arrayValue?.compactMap { $0.objectValue?["id"]?.stringValue } ?? []
            return (ids, answer.json?["next_cursor"]?.stringValue, answer.json)
        }
        let first = try page("/v1/pushes/\(id)?limit=3")
        #expect(first.ids == ["a1", "a2", "a3"] && first.cursor != nil)
        let counts = first.json?["counts"]?.objectValue
        #expect(counts?["sent"] == .number(JSONNumber(3)) && counts?["unregistered"] == .number(JSONNumber(1)))
        #expect(counts?["queued"] == .number(JSONNumber(0)), "every status is counted, over the whole push")
        let second = try page("/v1/pushes/\(id)?limit=3&cursor=\(first.cursor ?? "")")
        #expect(second.ids == ["g1"] && second.cursor == nil, "the last page has no cursor")
        #expect(try page("/v1/pushes/\(id)").ids == ["a1", "a2", "a3", "g1"], "1,000 a page by default")

        let users = try page("/v1/users/u1/devices?limit=2")
        #expect(users.ids == ["a1", "a2"] && users.cursor != nil)
        let rest = try page("/v1/users/u1/devices?limit=2&cursor=\(users.cursor ?? "")")
        #expect(rest.ids == ["a3", "g1"] && rest.cursor == nil)
        #expect(try page("/v1/users/u1/devices?state=unregistered").ids == ["g1"])
        #expect(try page("/v1/users/nobody/devices").ids.isEmpty)

        for path in [
            "/v1/pushes/\(id)?limit=0", "/v1/pushes/\(id)?limit=5001", "/v1/pushes/\(id)?cursor=bm9wZQ",
            "/v1/pushes/\(id)?state=sent", "/v1/users/u1/devices?limit=501", "/v1/users/u1/devices?cursor=x",
        ] {
            let refused = try world.request("GET", path, token: world.adminToken)
            #expect(
                refused.status == 400
                    && refused.json?["error"]?.objectValue?["message"]?.stringValue?.hasPrefix("query parameter ")
                        == true,
                "\(path)")
        }
    }
}
