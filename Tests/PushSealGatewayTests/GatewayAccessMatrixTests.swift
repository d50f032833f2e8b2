import Foundation
import PushSealCore
import PushSealGatewayModel
import PushSealGatewayStorage
import PushSealTestSupport
import Testing

@testable import PushSealGateway

/// Every operation of `docs/gateway-v1.openapi.json` that names a scope, tried with every scope,
/// with no token, a revoked one and an expired one (gateway-v1.md, "Access tokens"): a token
/// without the scope is 403 and changes nothing, no valid token is 401, and a token with the
/// scope (or `admin`) gets the operation's documented success. An operation the document adds
/// without a request here fails the test, so the matrix follows the document.
@Suite("pushseal-gateway access matrix", .serialized)
struct GatewayAccessMatrixTests {
    /// One operation as the matrix sends it.
    struct Operation {
        let method: String
        /// The document's path, with its parameters named.
        let template: String
        /// Makes what a request needs (a device to delete, an endpoint to remove), as admin, and
        /// gives the path and body to send.
        let prepare: (GatewayWorld) throws -> (path: String, body: String?)
        /// The status a permitted request gets.
        let success: Int
    }

    static let alert = #"{"aps":{"alert":{"title":"Order 1042","body":"Shipped"}}}"#

    /// A device registration body for `user` with a device key made by the CLI.
    static func deviceBody(_ world: GatewayWorld, user: String, index: Int, topic: String = "com.example.shop") throws
        -> String
    {
        let store = "store-matrix-\(index)"
        _ = try CLIRunner.run(["keys", "init", "--store", store], in: world.directory.path)
        let key = try CLIRunner.run(["keys", "rotate", "--store", store], in: world.directory.path).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let token = GatewayWorld.deviceToken("00aa", 100 + index)
        return
            #"{"user":"\#(user)","token":"\#(token)","topic":"\#(topic)","environment":"production","key":\#(key)}"#
    }

    /// A new device of user `u1`, registered as admin; its id.
    static func newDevice(_ world: GatewayWorld) throws -> String {
        let id = "matrix-\(RandomName.make())"
        let answer = try world.request(
            "PUT", "/v1/devices/\(id)", json: try deviceBody(world, user: "u1", index: Int.random(in: 0..<10_000)),
            token: world.adminToken)
        #expect(answer.status == 201)
        return id
    }

    static func operations(pushID: String) -> [Operation] {
        [
            Operation(method: "GET", template: "/v1/devices", prepare: { _ in ("/v1/devices", nil) }, success: 200),
            Operation(
                method: "PUT", template: "/v1/devices/{device_id}",
                prepare: { world in
                    ("/v1/devices/put-\(RandomName.make())", try deviceBody(world, user: "u2", index: 1))
                },
                success: 201),
            Operation(
                method: "GET", template: "/v1/devices/{device_id}", prepare: { _ in ("/v1/devices/phone", nil) },
                success: 200),
            Operation(
                method: "DELETE", template: "/v1/devices/{device_id}",
                prepare: { world in ("/v1/devices/\(try newDevice(world))", nil) }, success: 204),
            Operation(
                method: "POST", template: "/v1/devices/{device_id}/test",
                prepare: { _ in ("/v1/devices/phone/test", "{}") }, success: 200),
            Operation(
                method: "GET", template: "/v1/users/{user}/devices", prepare: { _ in ("/v1/users/u1/devices", nil) },
                success: 200),
            Operation(
                method: "POST", template: "/v1/pushes",
                prepare: { _ in ("/v1/pushes", #"{"to":{"user":"u1"},"payload":\#(alert)}"#) }, success: 202),
            Operation(
                method: "GET", template: "/v1/pushes/{push_id}", prepare: { _ in ("/v1/pushes/\(pushID)", nil) },
                success: 200),
            Operation(method: "GET", template: "/v1/status", prepare: { _ in ("/v1/status", nil) }, success: 200),
            Operation(
                method: "GET", template: "/v1/webpush/vapid", prepare: { _ in ("/v1/webpush/vapid", nil) },
                success: 200),
            Operation(
                method: "POST", template: "/v1/devices/{device_id}/webpush",
                prepare: { _ in ("/v1/devices/phone/webpush", "{}") }, success: 201),
            Operation(
                method: "DELETE", template: "/v1/webpush/{endpoint_id}",
                prepare: { world in
                    let made = try world.request(
                        "POST", "/v1/devices/phone/webpush", json: "{}", token: world.adminToken)
                    let endpoint = made.json?["endpoint"]?.stringValue ?? ""
                    return ("/v1/webpush/\(endpoint.suffix(WebPushInbox.idLength))", nil)
                }, success: 204),
        ]
    }

    /// A gateway on `backend` with the relay and Web Push, device `phone` of user `u1`, and a push
    /// to it made as admin; the push's id. With `otherApp`, the gateway has that app too (its own
    /// key and topic, the relay, no Web Push).
    static func worldWithPush(_ backend: GatewayBackend, otherApp: AppID? = nil) throws -> (
        GatewayWorld, pushID: String
    ) {
        let world = try GatewayWorld(
            backend, webPush: true, otherApp: otherApp,
            appSettings: #""relay": {"public_url": "https://relay.example"}"#)
        try world.registerDevice("phone", user: "u1", token: GatewayWorld.deviceToken("00aa", 1))
        let pushed = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":\#(Self.alert)}"#, token: world.adminToken)
        return (world, try #require(pushed.json?["id"]?.stringValue))
    }

    /// ``worldWithPush(_:otherApp:)`` with a second app, `other`, and an admin token of it.
    static func worldWithOtherApp(_ backend: GatewayBackend) throws -> (
        world: GatewayWorld, pushID: String, other: AppID, otherToken: String
    ) {
        let other = try #require(AppID("other"))
        let (world, pushID) = try worldWithPush(backend, otherApp: other)
        return (world, pushID, other, try GatewayWorld.token(in: world.store, scopes: [.admin], app: other))
    }

    /// The document's operations that name a scope, as `METHOD path` and the scope.
    static func documentedScopes() throws -> [String: AccessScope] {
        let path = TestVectors.packageRoot.appendingPathComponent("docs/gateway-v1.openapi.json")
        let document = try #require(try JSONParser.parse(Array(try Data(contentsOf: path))).objectValue)
        var scopes: [String: AccessScope] = [:]
        for (template, item) in document["paths"]?.objectValue ?? JSONObject([]) {
            for (method, operation) in item.objectValue ?? JSONObject([]) {
                guard case .array(let requirements)? = operation.objectValue?["security"],
                    let bearer = requirements.first?.objectValue?["bearer"], case .array(let names) = bearer,
                    let name = names.first?.stringValue, let scope = AccessScope(rawValue: name)
                else { continue }
                scopes["\(method.uppercased()) \(template)"] = scope
            }
        }
        return scopes
    }

    @Test(
        "every scoped operation: 403 and nothing changed without its scope, 401 with no, a revoked or an expired token, success with it",
        arguments: GatewayBackend.allCases)
    func matrix(_ backend: GatewayBackend) throws {
        let (world, pushID) = try Self.worldWithPush(backend)
        let now = GatewayClock.milliseconds()
        var tokens: [(name: String, text: String?, scopes: Set<AccessScope>)] = [("none", nil, [])]
        for scope in AccessScope.allCases {
            tokens.append((scope.rawValue, try GatewayWorld.token(in: world.store, scopes: [scope]), [scope]))
        }
        let revoked = AccessTokens.make(scopes: Set(AccessScope.allCases), at: now)
        try world.store.addAccessToken(revoked.record)
        #expect(try world.store.revokeAccessToken(id: revoked.record.id, at: now))
        tokens.append(("revoked", revoked.text, []))
        let expired = AccessTokens.make(scopes: Set(AccessScope.allCases), at: now - 10_000, expiresAt: now - 1)
        try world.store.addAccessToken(expired.record)
        tokens.append(("expired", expired.text, []))
        tokens.append(("malformed", "psg_not_a_token", []))

        let documented = try Self.documentedScopes()
        let operations = Self.operations(pushID: pushID)
        let tried = Set(operations.map { "\($0.method) \($0.template)" })
        #expect(tried == Set(documented.keys), "the matrix and the document name the same operations")
        for operation in operations {
            let key = "\(operation.method) \(operation.template)"
            let scope = try #require(documented[key], "\(key) is in the document")
            for token in tokens {
                let (path, body) = try operation.prepare(world)
                let before = try world.store.statistics()
                let answer = try world.request(operation.method, path, json: body, token: token.text)
                let permitted = token.scopes.contains(scope) || token.scopes.contains(.admin)
                let expected = permitted ? operation.success : (token.scopes.isEmpty ? 401 : 403)
                #expect(
                    answer.status == expected,
                    "\(key) with \(token.name): \(answer.status), expected \(expected): \(String(decoding: answer.body.prefix(200), as: UTF8.self))"
                )
                if !permitted {
                    let after = try world.store.statistics()
                    #expect(
                        after.activeDevices == before.activeDevices
                            && after.deliveries.values.reduce(0, +) == before.deliveries.values.reduce(0, +),
                        "\(key) with \(token.name) changed nothing")
                    if operation.method == "DELETE", path.hasPrefix("/v1/devices/") {
                        #expect(
                            try world.store.device(id: String(path.dropFirst(12)), in: .default) != nil,
                            "still registered")
                    }
                }
            }
        }
    }

    @Test(
        "another app's admin token, through every operation: none reads, lists, pushes to, tests, deletes or learns of this app's devices, pushes or endpoints",
        arguments: GatewayBackend.allCases)
    func anotherApp(_ backend: GatewayBackend) throws {
        let (world, pushID, otherApp, other) = try Self.worldWithOtherApp(backend)
        let endpoint = try world.request("POST", "/v1/devices/phone/webpush", json: "{}", token: world.adminToken)
        let endpointID = String((endpoint.json?["endpoint"]?.stringValue ?? "").suffix(WebPushInbox.idLength))

        // What each operation, with this app's ids, answers the other app (configured beside it,
        // with a relay of its own and no webpush): 404 for what only this app has, an empty list
        // or push where the other app simply has nothing. The status is the gateway's.
        let expected: [String: (path: String, body: String?, status: Int)] = [
            "GET /v1/devices": ("/v1/devices", nil, 200),
            "PUT /v1/devices/{device_id}": (
                "/v1/devices/phone",
                try Self.deviceBody(world, user: "u9", index: 7, topic: GatewayWorld.otherTopic), 201
            ),
            "GET /v1/devices/{device_id}": ("/v1/devices/phone", nil, 404),
            "DELETE /v1/devices/{device_id}": ("/v1/devices/phone", nil, 204),
            "POST /v1/devices/{device_id}/test": ("/v1/devices/phone/test", "{}", 404),
            "GET /v1/users/{user}/devices": ("/v1/users/u1/devices", nil, 200),
            "POST /v1/pushes": ("/v1/pushes", #"{"to":{"user":"u1"},"payload":\#(Self.alert)}"#, 202),
            "GET /v1/pushes/{push_id}": ("/v1/pushes/\(pushID)", nil, 404),
            "GET /v1/status": ("/v1/status", nil, 200),
            "GET /v1/webpush/vapid": ("/v1/webpush/vapid", nil, 404),
            "POST /v1/devices/{device_id}/webpush": ("/v1/devices/missing/webpush", "{}", 404),
            "DELETE /v1/webpush/{endpoint_id}": ("/v1/webpush/\(endpointID)", nil, 404),
        ]
        #expect(Set(expected.keys) == Set(try Self.documentedScopes().keys), "every documented operation is tried")
        var answers: [String: GatewayHTTP.Answer] = [:]
        // In order: the other app first looks, then registers its own "phone", then deletes it.
        for key in [
            "GET /v1/devices", "GET /v1/devices/{device_id}", "GET /v1/users/{user}/devices",
            "POST /v1/devices/{device_id}/test", "POST /v1/pushes", "GET /v1/pushes/{push_id}", "GET /v1/status",
            "GET /v1/webpush/vapid", "POST /v1/devices/{device_id}/webpush", "DELETE /v1/webpush/{endpoint_id}",
            "PUT /v1/devices/{device_id}", "DELETE /v1/devices/{device_id}",
        ] {
            let request = try #require(expected[key])
            let method = String(key.split(separator: " ")[0])
            let answer = try world.request(method, request.path, json: request.body, token: other)
            answers[key] = answer
            #expect(
                answer.status == request.status,
                "\(key): \(answer.status): \(String(decoding: answer.body.prefix(200), as: UTF8.self))")
        }
        #expect(answers["GET /v1/devices"]?.json?["devices"] == .array([]), "no device of this app listed")
        #expect(answers["GET /v1/users/{user}/devices"]?.json?["devices"] == .array([]))
        #expect(answers["POST /v1/pushes"]?.json?["deliveries"] == .number(JSONNumber(0)), "nobody reached")
        let status = answers["GET /v1/status"]?.json
        #expect(
            status?["devices"]?.objectValue?["active"] == .number(JSONNumber(0))
                && status?["last_hour"] == .array([]),
            "the status is the other app's own, which had no device yet and sent nothing")
        let mine = try #require(try world.store.device(id: "phone", in: .default))
        #expect(
            mine.user == "u1" && mine.unregisteredAt == nil, "this app's phone untouched by the other's PUT and DELETE")
        #expect(try world.store.push(id: pushID, in: .default)?.deliveries.count == 1)
        #expect(try world.store.inbox(idHash: WebPushInbox.hash(endpointID))?.0.removedAt == nil, "the endpoint works")
        #expect(try world.store.device(id: "phone", in: otherApp) == nil, "the other's went")
    }

    @Test(
        "an operator's token, over every app, reads the gateway's status and nothing of any app: every other operation is 403",
        arguments: GatewayBackend.allCases)
    func operatorToken(_ backend: GatewayBackend) throws {
        let (world, pushID, _, other) = try Self.worldWithOtherApp(backend)
        let registered = try world.request(
            "PUT", "/v1/devices/tablet",
            json: try Self.deviceBody(world, user: "u2", index: 8, topic: GatewayWorld.otherTopic), token: other)
        #expect(registered.status == 201)
        let (text, record) = AccessTokens.make(scopes: [.admin], in: nil, at: GatewayClock.milliseconds())
        try world.store.addAccessToken(record)
        let paths: [String: (path: String, body: String?)] = [
            "GET /v1/devices": ("/v1/devices", nil),
            "PUT /v1/devices/{device_id}": ("/v1/devices/phone", try Self.deviceBody(world, user: "u9", index: 9)),
            "GET /v1/devices/{device_id}": ("/v1/devices/phone", nil),
            "DELETE /v1/devices/{device_id}": ("/v1/devices/phone", nil),
            "POST /v1/devices/{device_id}/test": ("/v1/devices/phone/test", "{}"),
            "GET /v1/users/{user}/devices": ("/v1/users/u1/devices", nil),
            "POST /v1/pushes": ("/v1/pushes", #"{"to":{"user":"u1"},"payload":\#(Self.alert)}"#),
            "GET /v1/pushes/{push_id}": ("/v1/pushes/\(pushID)", nil),
            "GET /v1/status": ("/v1/status", nil),
            "GET /v1/webpush/vapid": ("/v1/webpush/vapid", nil),
            "POST /v1/devices/{device_id}/webpush": ("/v1/devices/phone/webpush", "{}"),
            "DELETE /v1/webpush/{endpoint_id}": (
                "/v1/webpush/\(String(repeating: "a", count: WebPushInbox.idLength))", nil
            ),
        ]
        #expect(Set(paths.keys) == Set(try Self.documentedScopes().keys), "every documented operation is tried")
        for (key, request) in paths {
            let method = String(key.split(separator: " ")[0])
            let answer = try world.request(method, request.path, json: request.body, token: text)
            if key == "GET /v1/status" {
                let devices = answer.json?["devices"]?.objectValue?["active"]
                #expect(
                    answer.status == 200 && devices == .number(JSONNumber(2)), "both apps' devices: \(answer.status)")
            } else {
                #expect(
                    answer.status == 403 && answer.errorCode == "operator-token",
                    "\(key): \(answer.status) \(answer.errorCode ?? "")")
            }
        }
        let mine = try #require(try world.store.device(id: "phone", in: .default))
        #expect(mine.user == "u1" && mine.unregisteredAt == nil, "untouched")
        for token in [world.adminToken, other] {
            let own = try world.request("GET", "/v1/status", token: token)
            #expect(own.json?["devices"]?.objectValue?["active"] == .number(JSONNumber(1)), "each app sees its one")
        }
    }
}
