import Foundation
import PushSealCore
import PushSealGatewayModel
import PushSealGatewayStorage
import PushSealTestSupport
import Testing

@testable import PushSealGateway

/// The HTTP API over real HTTP on loopback: every endpoint, the error shape, authentication and
/// scopes, the body limit, idempotency (gateway-v1.md).
@Suite("pushseal-gateway API", .serialized)
struct GatewayAPITests {
    static let token = GatewayWorld.deviceToken("00aa", 1)

    @Test("health and readiness need no token; metrics are Prometheus text", arguments: GatewayBackend.allCases)
    func probes(_ backend: GatewayBackend) throws {
        let world = try GatewayWorld(backend)
        #expect(try world.request("GET", "/healthz").status == 200)
        #expect(try world.request("GET", "/readyz").status == 200)
        let metrics = try world.request("GET", "/metrics")
        let text = String(decoding: metrics.body, as: UTF8.self)
        #expect(
            metrics.status == 200 && text.contains(#"pushseal_gateway_pushes_accepted_total{app="default"} 0"#),
            "\(text)")
        #expect(text.contains("pushseal_gateway_queue_depth 0"))
    }

    @Test(
        "on SQLite, /metrics counts the writer's commits, transactions and busy time; PostgreSQL has no one writer",
        arguments: GatewayBackend.allCases)
    func sqliteWriterMetrics(_ backend: GatewayBackend) throws {
        let world = try GatewayWorld(backend)
        for index in 1...3 {
            try world.registerDevice("d\(index)", user: "u", token: GatewayWorld.deviceToken("0b", index))
        }
        let text = String(decoding: try world.request("GET", "/metrics").body, as: UTF8.self)
        func value(_ name: String) -> Double? {
            text.split(separator: "\n").first { $0.hasPrefix("pushseal_gateway_\(name) ") }
                .flatMap { Double($0.split(separator: " ")[1]) }
        }
        let families = ["sqlite_writer_busy_seconds_total", "sqlite_commits_total", "sqlite_write_transactions_total"]
        guard backend == .sqlite else {
            #expect(families.allSatisfy { value($0) == nil && !text.contains($0) }, "\(text)")
            return
        }
        let transactions = try #require(value("sqlite_write_transactions_total"))
        let commits = try #require(value("sqlite_commits_total"))
        #expect(transactions >= 3, "the three registrations at least")
        #expect(commits >= 1 && commits <= transactions)
        #expect(try #require(value("sqlite_writer_busy_seconds_total")) > 0)
        #expect(text.contains("# TYPE pushseal_gateway_sqlite_writer_busy_seconds_total counter"))
    }

    @Test("when its database is gone, the API answers 503 unavailable with Retry-After: 1, and /readyz fails")
    func databaseGone() throws {
        let world = try GatewayWorld(.postgres)
        #expect(try world.request("GET", "/v1/users/someone/devices", token: world.adminToken).status == 200)
        try PostgresTestServer.shared.get().dropDatabase(world.database)
        let answer = try world.request("GET", "/v1/users/someone/devices", token: world.adminToken)
        #expect(answer.status == 503)
        #expect(answer.headers["retry-after"] == "1")
        #expect(answer.errorCode == "unavailable")
        #expect(try world.request("GET", "/readyz").status == 503)
    }

    @Test(
        "the gateway listens on an IPv6 address too (asked with curl: Foundation's client refuses [::1] URLs)",
        arguments: GatewayBackend.allCases)
    func ipv6(_ backend: GatewayBackend) throws {
        let world = try GatewayWorld(backend, listen: "[::1]:0")
        let curl = URL(fileURLWithPath: "/usr/bin/curl")
        let base = "http://[::1]:\(world.gateway.port)"
        let health = try CLIRunner.run(executable: curl, ["-sg", "\(base)/healthz"], input: Data(), in: nil)
        #expect(health.output == #"{"status":"ok"}"# + "\n")
        let devices = try CLIRunner.run(
            executable: curl,
            ["-sg", "-H", "Authorization: Bearer \(world.adminToken)", "\(base)/v1/users/u1/devices"],
            input: Data(), in: nil)
        #expect(devices.output == #"{"devices":[]}"# + "\n")
    }

    @Test("without a valid token: 401 and nothing else; without the scope: 403", arguments: GatewayBackend.allCases)
    func authentication(_ backend: GatewayBackend) throws {
        let world = try GatewayWorld(backend)
        for token in [nil, "nope", "psg_0011223344556677_" + String(repeating: "A", count: 43)] {
            let answer = try world.request("GET", "/v1/devices/a", token: token)
            #expect(answer.status == 401 && answer.errorCode == "unauthorized", "\(token ?? "none")")
            #expect(answer.headers["www-authenticate"] == "Bearer")
        }
        let readOnly = try GatewayWorld.token(in: world.store, scopes: [.read])
        let refused = try world.request(
            "PUT", "/v1/devices/a", json: #"{"user":"u"}"#, token: readOnly)
        #expect(refused.status == 403 && refused.errorCode == "forbidden")
        #expect(try world.request("GET", "/v1/devices/a", token: readOnly).status == 404, "read may read")

        let (text, record) = AccessTokens.make(scopes: [.read], at: 0)
        try world.store.addAccessToken(record)
        #expect(try world.request("GET", "/v1/devices/a", token: text).status == 404)
        #expect(try world.store.revokeAccessToken(id: record.id, at: 1))
        #expect(try world.request("GET", "/v1/devices/a", token: text).status == 401, "revoked")
        let tampered = String(text.dropLast()) + (text.hasSuffix("A") ? "B" : "A")
        #expect(try world.request("GET", "/v1/devices/a", token: tampered).status == 401, "another secret")
    }

    @Test(
        "devices: register, read, list by user, update, delete; tokens stored lower-case",
        arguments: GatewayBackend.allCases)
    func devices(_ backend: GatewayBackend) throws {
        let world = try GatewayWorld(backend)
        let created = try world.registerDevice("phone-1", user: "u1", token: Self.token.uppercased())
        #expect(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
        #expect(created.json?["token"] == .string(Self.token) && created.json?["state"] == .string("active"))
        #expect(try world.registerDevice("phone-1", user: "u1", token: Self.token).status == 200, "idempotent update")
        try world.registerDevice("tablet", user: "u1", suite: "p256", token: GatewayWorld.deviceToken("00aa", 2))
        let read = try world.request("GET", "/v1/devices/tablet", token: world.adminToken)
        #expect(read.status == 200 && read.json?["key"]?.objectValue?["crv"] == .string("P-256"))
        let listed = try world.request("GET", "/v1/users/u1/devices", token: world.adminToken)
        guard case .array(let devices)? = listed.json?["devices"] else {
            Issue.record("no devices")
            return
        }
        #expect(devices.compactMap { $0.objectValue?["id"]?.stringValue } == ["phone-1", "tablet"])
        // The listing never answers 404: an unknown user has none, a user id with '/' is no id.
        let unknown = try world.request("GET", "/v1/users/nobody/devices", token: world.adminToken)
        #expect(unknown.status == 200 && unknown.json?["devices"] == .array([]))
        let slashed = try world.request("GET", "/v1/users/u1%2Fx/devices", token: world.adminToken)
        #expect(
            slashed.status == 400 && slashed.errorCode == "invalid-request"
                && String(decoding: slashed.body, as: UTF8.self).contains("path parameter user"),
            "\(slashed.status) \(String(decoding: slashed.body, as: UTF8.self))")
        #expect(try world.request("DELETE", "/v1/devices/tablet", token: world.adminToken).status == 204)
        #expect(try world.request("GET", "/v1/devices/tablet", token: world.adminToken).status == 404)
        #expect(try world.request("DELETE", "/v1/devices/tablet", token: world.adminToken).status == 404)
    }

    @Test(
        "a registration is checked member by member, the error naming the path",
        arguments: [
            (#""token":"xyz""#, "$.token"), (#""topic":"com.other.app""#, "$.topic"),
            (#""environment":"staging""#, "$.environment"), (#""extra":1"#, "$.extra"),
            (#""key":{"kty":"oct","k":"AAAA"}"#, "$.key"),
            (#""key":{"kty":"OKP","crv":"X25519","x":"AAAA"}"#, "$.key"),
        ])
    func registrationErrors(_ change: String, _ path: String) throws {
        // Checked before the store is touched: one backend is enough.
        let world = try GatewayWorld()
        var members = [
            ("user", #""user":"u1""#), ("token", #""token":"\#(Self.token)""#),
            ("topic", #""topic":"com.example.shop""#), ("environment", #""environment":"production""#),
            ("key", #""key":\#(try Self.publicKey(world))"#),
        ]
        let name = String(change.dropFirst().prefix { $0 != "\"" })
        if let index = members.firstIndex(where: { $0.0 == name }) {
            members[index].1 = change
        } else {
            members.append((name, change))
        }
        let body = "{" + members.map(\.1).joined(separator: ",") + "}"
        let answer = try world.request("PUT", "/v1/devices/d", json: body, token: world.adminToken)
        #expect(answer.status == 400 && answer.errorCode == "invalid-request", "\(change)")
        #expect(answer.errorPath == path, "\(String(decoding: answer.body, as: UTF8.self))")
    }

    @Test(
        "a private or shared key is refused: the gateway never holds a device's secret",
        arguments: GatewayBackend.allCases)
    func privateKeys(_ backend: GatewayBackend) throws {
        let world = try GatewayWorld(backend)
        _ = try CLIRunner.run(
            ["keys", "generate", "--suite", "x25519", "--out", "private.jwk"], in: world.directory.path)
        _ = try CLIRunner.run(
            ["keys", "generate", "--suite", "xchacha", "--out", "shared.jwk"], in: world.directory.path)
        for (file, path) in [("private.jwk", "$.key.d"), ("shared.jwk", "$.key")] {
            let key = try String(contentsOfFile: world.directory.file(file), encoding: .utf8)
            let answer = try world.request(
                "PUT", "/v1/devices/d",
                json:
                    #"{"user":"u","token":"\#(Self.token)","topic":"com.example.shop","environment":"sandbox","key":\#(key)}"#,
                token: world.adminToken)
            #expect(answer.status == 400 && answer.errorPath == path, "\(String(decoding: answer.body, as: UTF8.self))")
            #expect(!String(decoding: answer.body, as: UTF8.self).contains("\"d\":"), "the secret is not echoed")
        }
    }

    @Test("the body limit holds across the pieces of a chunked body: at it the body is read, one byte past it is 413")
    func chunkedBodyLimit() throws {
        let world = try GatewayWorld()
        func post(_ count: Int) throws -> String {
            let file = try world.directory.write("body-\(count)", String(repeating: " ", count: count))
            let run = try CLIRunner.run(
                executable: URL(fileURLWithPath: "/usr/bin/curl"),
                [
                    "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-H",
                    "Authorization: Bearer \(world.adminToken)", "-H", "Content-Type: application/json", "-H",
                    "Transfer-Encoding: chunked", "--data-binary", "@\(file)",
                    "http://127.0.0.1:\(world.gateway.port)/v1/pushes",
                ], input: Data(), in: nil)
            return run.output
        }
        #expect(try post(GatewayAPI.maximumBodyBytes) == "400", "at the limit: read, and found not to be JSON")
        #expect(try post(GatewayAPI.maximumBodyBytes + 1) == "413")
        #expect(try post(200_000) == "413")
    }

    @Test(
        "bodies: over 64 KiB is 413, not JSON is 400, not application/json is 415; unknown routes 404, methods 405",
        arguments: GatewayBackend.allCases)
    func bodies(_ backend: GatewayBackend) throws {
        let world = try GatewayWorld(backend)
        let big = Data(repeating: 0x20, count: 70_000)
        let large = try world.request("POST", "/v1/pushes", token: world.adminToken, rawBody: big)
        #expect(large.status == 413 && large.errorCode == "body-too-large")
        let broken = try world.request("POST", "/v1/pushes", json: #"{"to":"#, token: world.adminToken)
        #expect(broken.status == 400 && broken.errorCode == "invalid-json")
        let duplicate = try world.request("POST", "/v1/pushes", json: #"{"to":1,"to":2}"#, token: world.adminToken)
        #expect(duplicate.status == 400 && duplicate.errorCode == "invalid-json")
        let text = try world.request(
            "POST", "/v1/pushes", json: "{}", token: world.adminToken, contentType: "text/plain")
        #expect(text.status == 415)
        #expect(try world.request("GET", "/v2/anything", token: world.adminToken).status == 404)
        let patch = try world.request("PATCH", "/v1/pushes", token: world.adminToken)
        #expect(patch.status == 405 && patch.headers["allow"] == "POST", "405 says what is allowed")
        #expect(
            try world.request("POST", "/v1/devices/d", token: world.adminToken).headers["allow"] == "GET, PUT, DELETE")
        let nobody = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"devices":["nobody"]},"payload":{"aps":{"badge":-1}}}"#,
            token: world.adminToken)
        #expect(nobody.status == 400 && nobody.errorPath == "$.payload", "checked even when no device matches")
    }

    @Test(
        "a push is answered 202 before APNs, with its deliveries and an id that starts with its time; a repeated idempotency key sends nothing again, and with another request is 409",
        arguments: GatewayBackend.allCases)
    func pushes(_ backend: GatewayBackend) throws {
        let world = try GatewayWorld(backend)
        try world.registerDevice("phone", user: "u1", token: Self.token)
        let body =
            #"{"to":{"user":"u1"},"payload":{"aps":{"alert":{"title":"Hi","body":"Secret 42"}}},"idempotency_key":"k1"}"#
        let first = try world.request("POST", "/v1/pushes", json: body, token: world.adminToken)
        #expect(first.status == 202 && first.json?["deliveries"] == .number(JSONNumber(1)))
        let id = try #require(first.json?["id"]?.stringValue)
        let again = try world.request("POST", "/v1/pushes", json: body, token: world.adminToken)
        #expect(again.json?["id"] == .string(id) && again.json?["repeated"] == .bool(true))
        // The same request with its members in another order is the same request.
        let reordered =
            #"{"idempotency_key":"k1","payload":{"aps":{"alert":{"body":"Secret 42","title":"Hi"}}},"to":{"user":"u1"}}"#
        let third = try world.request("POST", "/v1/pushes", json: reordered, token: world.adminToken)
        #expect(third.status == 202 && third.json?["id"] == .string(id) && third.json?["repeated"] == .bool(true))
        // Another request under the same key is refused, naming the earlier push: never dropped in silence.
        let changed = body.replacingOccurrences(of: "Secret 42", with: "Secret 43")
        let conflict = try world.request("POST", "/v1/pushes", json: changed, token: world.adminToken)
        #expect(conflict.status == 409 && conflict.errorCode == "idempotency-conflict")
        #expect(conflict.errorPath == "$.idempotency_key")
        #expect(conflict.json?["error"]?.objectValue?["message"]?.stringValue?.contains(id) == true)
        #expect(try world.eventually { try world.store.push(id: id, in: .default)?.deliveries.first?.status == .sent })
        let status = try world.request("GET", "/v1/pushes/\(id)", token: world.adminToken)
        // The id is a version 7 UUID whose first 48 bits are the time it was accepted.
        let acceptedAt = try #require(status.json?["accepted_at"]?.numberValue?.intValue)
        let hex = String(acceptedAt, radix: 16)
        let timeDigits = String(repeating: "0", count: 12 - hex.count) + hex
        #expect(id.filter { $0 != "-" }.prefix(13) == timeDigits + "7", "\(id) accepted at \(acceptedAt)")
        let delivery = try #require(status.json?["deliveries"]?.arrayValue?.first?.objectValue)
        #expect(
            delivery["status"] == .string("sent") && delivery["apns_id"] != nil
                && delivery["device"] == .string("phone"))
        Thread.sleep(forTimeInterval: 0.5)
        #expect(world.apns.requests().count == 1, "the repeat sent nothing")
    }

    @Test(
        "a push is checked like pushseal encrypt's input, naming the path",
        arguments: [
            (#"{"to":{"group":"g"},"payload":{"aps":{}}}"#, "$.to.group"),
            (#"{"to":{"users":[]},"payload":{"aps":{}}}"#, "$.to.users"),
            (#"{"to":{"user":"u1"},"payload":{"aps":{"interruption-level":"loud"}}}"#, "$.payload"),
            (
                #"{"to":{"user":"u1"},"payload":{"aps":{"alert":"x"}},"options":{"push_type":"sms"}}"#,
                "$.options.push_type"
            ),
            (#"{"to":{"user":"u1"},"payload":{"aps":{"alert":"x"}},"extra":true}"#, "$.extra"),
            (
                #"{"to":{"user":"u1"},"payload":{"aps":{"alert":"x"}},"options":{"collapse_id":"\#(String(repeating: "c", count: 65))"}}"#,
                "$.options.collapse_id"
            ),
        ])
    func pushErrors(_ body: String, _ path: String) throws {
        // Checked before the store is touched: one backend is enough.
        let world = try GatewayWorld()
        try world.registerDevice("phone", user: "u1", token: Self.token)
        let answer = try world.request("POST", "/v1/pushes", json: body, token: world.adminToken)
        #expect(answer.status == 400 && answer.errorPath == path, "\(String(decoding: answer.body, as: UTF8.self))")
    }

    static func publicKey(_ world: GatewayWorld) throws -> String {
        _ = try CLIRunner.run(["keys", "generate", "--suite", "x25519", "--out", "k.jwk"], in: world.directory.path)
        return try CLIRunner.run(["keys", "public", "k.jwk"], in: world.directory.path).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

extension JSONValue {
    /// The elements, if this is an array.
    var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }
}
