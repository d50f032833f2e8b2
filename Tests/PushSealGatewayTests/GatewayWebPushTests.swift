import Foundation
import PushSealCore
import PushSealDelivery
import PushSealGatewayModel
import PushSealGatewayStorage
import PushSealPrimitives
import PushSealTestSupport
import Testing

@testable import PushSealGateway

/// Web Push through the gateway (gateway-v1.md, "Web Push"): subscriptions registered beside APNs
/// devices, one push reaching both kinds, and what each push service's answer does, against
/// `mock_push_service.py` (which checks the VAPID token and decrypts every message with http_ece).
@Suite("pushseal-gateway Web Push", .serialized)
struct GatewayWebPushTests {
    static let alert =
        #"{"aps":{"alert":{"title":"Order 1042","body":"Your parcel code is 7734-XQ"}},"note":"private-note-5521"}"#

    /// The state of each delivery of push `id`, by device, once none is `queued` but `pending`.
    static func states(_ world: GatewayWorld, push id: String, pending: Set<String> = []) throws
        -> [String: DeliveryState]
    {
        var states: [String: DeliveryState] = [:]
        _ = try world.eventually {
            let deliveries = try world.store.push(id: id, in: .default)?.deliveries ?? []
            states = Dictionary(uniqueKeysWithValues: deliveries.map { ($0.deviceID, $0) })
            return deliveries.allSatisfy { $0.status != .queued || pending.contains($0.deviceID) }
        }
        return states
    }

    /// Sends `json` as a push and returns its id.
    static func push(_ world: GatewayWorld, _ json: String) throws -> String {
        let answer = try world.request("POST", "/v1/pushes", json: json, token: world.adminToken)
        #expect(answer.status == 202, "\(answer.json.map { JSONWriter.string(.object($0)) } ?? "")")
        return try #require(answer.json?["id"]?.stringValue)
    }

    /// The content a push service decrypted, as JSON.
    static func content(_ request: [String: Any]) throws -> JSONObject {
        let bytes = try #require((request["content"] as? String).flatMap { Base64URL.decode($0) })
        return try #require(try JSONParser.parse(bytes).objectValue)
    }

    @Test(
        "a user with two APNs devices and two subscriptions gets four deliveries, each opened by its own receiver",
        arguments: GatewayBackend.allCases)
    func fourDeliveries(_ backend: GatewayBackend) throws {
        let world = try GatewayWorld(backend, webPush: true)
        let tokens = (1...2).map { GatewayWorld.deviceToken("00aa", $0) }
        try world.registerDevice("phone", user: "u1", suite: "x25519", token: tokens[0])
        try world.registerDevice("tablet", user: "u1", suite: "p256", token: tokens[1])
        #expect(try world.registerSubscription("laptop", user: "u1", service: 0).status == 201)
        #expect(try world.registerSubscription("android", user: "u1", service: 1).status == 201)
        let expiration = Int(Date().timeIntervalSince1970) + 3_600
        let id = try Self.push(
            world,
            #"{"to":{"user":"u1"},"payload":\#(Self.alert),"options":{"priority":10,"collapse_id":"order-1042","expiration":\#(expiration)},"web":{"navigate":"https://shop.example.com/orders/1042","lang":"en"}}"#
        )
        let states = try Self.states(world, push: id)
        #expect(
            states.count == 4 && states.values.allSatisfy { $0.status == .sent },
            "\(states.values.map { "\($0.deviceID) \($0.status) \($0.reason ?? "")" })")

        var eventIDs = Set<String>()
        for (index, device) in ["phone", "tablet"].enumerated() {
            let request = try #require(world.apns.requests().first { $0["token"] as? String == tokens[index] })
            let body = try #require(request["body"] as? String)
            let opened = try CLIRunner.run(
                ["decrypt", "--store", "store-\(device)"], input: Data(body.utf8), in: world.directory.path)
            let line = try #require(try JSONParser.parse(opened.output.trimmingCharacters(in: .newlines)).objectValue)
            let notification = line["notification"]?.objectValue
            #expect(notification?["body"] == .string("Your parcel code is 7734-XQ"), "\(device): \(opened.output)")
            notification?["userInfo"]?.objectValue?["event_id"]?.stringValue.map { _ = eventIDs.insert($0) }
        }
        for service in world.pushServices {
            let requests = service.requests()
            #expect(requests.count == 1 && requests.first?["status"] as? Int == 201, "\(requests)")
            let request = try #require(requests.first)
            let content = try Self.content(request)
            #expect(content["web_push"] == .number(JSONNumber(8030)), "Declarative Web Push")
            let notification = try #require(content["notification"]?.objectValue)
            #expect(notification["title"] == .string("Order 1042"))
            #expect(notification["body"] == .string("Your parcel code is 7734-XQ"))
            #expect(notification["tag"] == .string("order-1042"))
            #expect(notification["navigate"] == .string("https://shop.example.com/orders/1042"))
            #expect(notification["lang"] == .string("en"))
            let data = try #require(notification["data"]?.objectValue)
            #expect(data["note"] == .string("private-note-5521") && data["aps"] == nil)
            data["event_id"]?.stringValue.map { _ = eventIDs.insert($0) }
            #expect(request["urgency"] as? String == "high" && request["topic"] as? String == "order-1042")
            let ttl = try #require((request["ttl"] as? String).flatMap { Int($0) })
            #expect((3_500...3_600).contains(ttl), "the TTL is the time left until the expiration: \(ttl)")
            #expect((request["vapid"] as? [String: Any])?["sub"] as? String == "mailto:ops@example.com")
        }
        #expect(eventIDs.count == 1, "one event_id for the push, on every device and browser")

        let shown = try world.request("GET", "/v1/devices/laptop", token: world.adminToken)
        let subscription = try #require(shown.json?["subscription"]?.objectValue)
        #expect(subscription["keys"]?.objectValue?["auth"] == nil, "the authentication secret is never shown")
        let p256dh = try world.receivers[0].subscription(endpoint: "https://x.example/").p256dh
        #expect(subscription["keys"]?.objectValue?["p256dh"]?.stringValue == p256dh)
    }

    @Test(
        "410 and 404 unregister the subscription, 400, 403 and 413 fail for good, 429 is sent again after its Retry-After, 503 for an hour waits"
    )
    func answers() throws {
        let world = try GatewayWorld(webPush: true)
        for script in ["gone", "missing", "toolarge", "bad", "forbidden", "throttle", "busy", "ok"] {
            #expect(try world.registerSubscription(script, user: "u1", service: 0, script: script).status == 201)
        }
        let id = try Self.push(world, #"{"to":{"user":"u1"},"payload":\#(Self.alert)}"#)
        let states = try Self.states(world, push: id, pending: ["busy"])
        #expect(states["gone"]?.status == .unregistered && states["gone"]?.reason?.hasPrefix("HTTP 410") == true)
        #expect(states["missing"]?.status == .unregistered && states["missing"]?.reason?.hasPrefix("HTTP 404") == true)
        #expect(states["toolarge"]?.status == .failed && states["toolarge"]?.reason == "HTTP 413: Payload Too Large")
        #expect(states["bad"]?.status == .failed && states["bad"]?.reason?.hasPrefix("HTTP 400") == true)
        #expect(states["forbidden"]?.status == .failed && states["forbidden"]?.reason?.hasPrefix("HTTP 403") == true)
        #expect([states["bad"], states["forbidden"]].allSatisfy { $0?.attempts == 1 }, "never tried again")
        #expect(states["throttle"]?.status == .sent && states["throttle"]?.attempts == 2)
        #expect(states["ok"]?.status == .sent && states["ok"]?.attempts == 1)
        #expect(states["busy"]?.status == .queued && states["busy"]?.reason?.hasPrefix("HTTP 503") == true)
        #expect(states["busy"]?.attempts == 1, "Retry-After: 3600 is honoured: no second request yet")
        let throttled = world.pushServices[0].requests().filter {
            ($0["path"] as? String)?.contains("throttle") == true
        }
        #expect(throttled.map { $0["status"] as? Int } == [429, 201])
        let metrics = String(decoding: try world.request("GET", "/metrics").body, as: UTF8.self)
        #expect(
            metrics.contains(#"pushseal_gateway_deliveries_total{app="default",status="failed",reason="http-413"} 1"#))
        #expect(
            metrics.contains(
                #"pushseal_gateway_deliveries_total{app="default",status="unregistered",reason="http-410"} 1"#))

        #expect(try world.store.device(id: "gone", in: .default)?.unregisteredAt != nil)
        #expect(try world.store.device(id: "missing", in: .default)?.unregisteredAt != nil)
        #expect(try world.store.device(id: "toolarge", in: .default)?.unregisteredAt == nil)
        let shown = try world.request("GET", "/v1/devices/gone", token: world.adminToken)
        #expect(shown.json?["state"] == .string("unregistered"))
        let again = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":\#(Self.alert)}"#, token: world.adminToken)
        #expect(again.json?["deliveries"] == .number(JSONNumber(6)), "the two gone subscriptions are skipped")
    }

    @Test("a slow push service and a dead one hold neither the other push services' deliveries nor APNs'")
    func slowAndDead() throws {
        let deafDirectory = TemporaryDirectory()
        let dead = try HostileHTTP2Server(mode: "deaf", in: deafDirectory)
        defer { dead.stop() }
        let world = try GatewayWorld(webPush: true, pushCertificates: [dead.certificate])
        try world.registerDevice("phone", user: "u1", token: GatewayWorld.deviceToken("00aa", 1))
        try world.registerSubscription("fast", user: "u1", service: 0)
        try world.registerSubscription("slow", user: "u1", service: 1, script: "slow")
        let deadSubscription = try world.receivers[0].subscription(endpoint: "\(dead.url)/push/dead")
        #expect(try world.registerSubscription("dead", user: "u1", deadSubscription).status == 201)
        let id = try Self.push(world, #"{"to":{"user":"u1"},"payload":\#(Self.alert)}"#)

        let early = try Self.states(world, push: id, pending: ["slow", "dead"])
        #expect(early["phone"]?.status == .sent && early["fast"]?.status == .sent, "\(early)")
        #expect(early["slow"]?.status == .queued, "the slow service answers after 3 s")
        let later = try Self.states(world, push: id, pending: ["dead"])
        #expect(later["slow"]?.status == .sent)
        #expect(later["dead"]?.status == .queued, "the dead service is still being waited for, or retried later")
    }

    @Test(
        "a push service answering one request at a time after 1.5 s (HTTP/1.1, and HTTP/2 with one stream) holds no other origin's delivery",
        arguments: GatewayBackend.allCases)
    func slowOriginsIsolated(_ backend: GatewayBackend) throws {
        let (http1Directory, singleDirectory) = (TemporaryDirectory(), TemporaryDirectory())
        let receiver = try WebPushReceiver.generate()
        let receiverJSON = JSONWriter.string(.object(receiver.json))
        let http1 = try MockPushService(
            receiverFile: try http1Directory.write("receiver.json", receiverJSON), slowMilliseconds: 1_500,
            http1: true, in: http1Directory)
        let single = try MockPushService(
            receiverFile: try singleDirectory.write("receiver.json", receiverJSON), slowMilliseconds: 1_500,
            maximumStreams: 1, in: singleDirectory)
        defer {
            http1.stop()
            single.stop()
        }
        let world = try GatewayWorld(backend, webPush: true, pushCertificates: [http1.certificate, single.certificate])
        for index in 0..<4 {
            for (name, service) in [("one", http1), ("single", single)] {
                let subscription = try receiver.subscription(endpoint: service.endpoint("slow", "\(name)-\(index)"))
                #expect(try world.registerSubscription("\(name)-\(index)", user: "mallory", subscription).status == 201)
            }
        }
        try world.registerSubscription("laptop", user: "alice", service: 0)
        // Enough of mallory's pushes for every Web Push worker to hold some of the slow deliveries.
        for _ in 0..<2 {
            _ = try Self.push(world, #"{"to":{"user":"mallory"},"payload":\#(Self.alert)}"#)
            Thread.sleep(forTimeInterval: 0.2)
        }
        Thread.sleep(forTimeInterval: 0.5)
        let started = Date()
        let id = try Self.push(world, #"{"to":{"user":"alice"},"payload":\#(Self.alert)}"#)
        _ = try world.eventually(15) { try world.store.push(id: id, in: .default)?.deliveries.first?.status == .sent }
        let took = Date().timeIntervalSince(started)
        #expect(took < 1, "alice's delivery left \(took) s after it was accepted")
        #expect(world.pushServices[0].requests().count == 1)
        // The slow services still get every delivery, each lane holding only what it can start soon.
        _ = world.eventually(40) { http1.requests().count >= 8 && single.requests().count >= 8 }
        #expect(http1.requests().filter { $0["status"] as? Int == 201 }.count == 8)
        #expect(single.requests().filter { $0["status"] as? Int == 201 }.count == 8)
    }

    @Test(
        "one user's 200 push services that take TLS and never answer, 1,000 deliveries: another user's delivery to a healthy service leaves within a second",
        arguments: GatewayBackend.allCases, [1, 2])
    func stalledOriginsHoldOnlyTheirUser(_ backend: GatewayBackend, workers: Int) throws {
        let stalledDirectory = TemporaryDirectory()
        let receiver = try WebPushReceiver.generate()
        let stalled = try MockPushService(
            receiverFile: try stalledDirectory.write("receiver.json", JSONWriter.string(.object(receiver.json))),
            alsoListen: 200, in: stalledDirectory)
        defer { stalled.stop() }
        let world = try GatewayWorld(
            backend, webPush: true, pushCertificates: [stalled.certificate], webPushWorkers: workers)
        for address in 2...201 {
            let subscription = try receiver.subscription(
                endpoint: stalled.endpoint("stall", "m\(address)", address: address))
            #expect(try world.registerSubscription("mallory-\(address)", user: "mallory", subscription).status == 201)
        }
        try world.registerSubscription("laptop", user: "alice", service: 0)
        for _ in 0..<5 { _ = try Self.push(world, #"{"to":{"user":"mallory"},"payload":\#(Self.alert)}"#) }
        // The workers hold what they took of mallory's deliveries, unanswered.
        #expect(world.eventually(15) { stalled.requests().count >= workers })
        Thread.sleep(forTimeInterval: 1)
        let started = Date()
        let id = try Self.push(world, #"{"to":{"user":"alice"},"payload":\#(Self.alert)}"#)
        _ = try world.eventually(20) { try world.store.push(id: id, in: .default)?.deliveries.first?.status == .sent }
        let took = Date().timeIntervalSince(started)
        let stalledOrigins = Set(stalled.requests().compactMap { $0["path"] as? String }).count
        print(
            "stalled origins, \(backend), \(workers) workers: alice's delivery left after \(took) s; \(stalledOrigins) stalled"
        )
        #expect(took < 1, "alice's delivery left \(took) s after it was accepted")
        #expect(
            stalledOrigins <= OriginLanes.Limits().perUser * workers,
            "mallory's deliveries held \(stalledOrigins) lanes")
    }

    @Test(
        "without allow_local_destinations, an endpoint whose name resolves to loopback is refused as it is connected to",
        arguments: GatewayBackend.allCases)
    func localDestinationRefusedAtConnect(_ backend: GatewayBackend) throws {
        let serviceDirectory = TemporaryDirectory()
        let receiver = try WebPushReceiver.generate()
        let service = try MockPushService(
            receiverFile: try serviceDirectory.write("receiver.json", JSONWriter.string(.object(receiver.json))),
            in: serviceDirectory)
        defer { service.stop() }
        let world = try GatewayWorld(
            backend,
            settings:
                #""webpush": {"vapid_key_file": "vapid.jwk", "subject": "mailto:ops@example.com", "ca_file": "\#(service.certificate)", "navigate": "https://shop.example.com/"}"#,
            vapidKey: true)
        let literal = try receiver.subscription(endpoint: service.endpoint("ok", "literal"))
        let refused = try world.registerSubscription("literal", user: "u1", literal)
        #expect(refused.status == 400 || refused.status == 422, "a loopback address is refused at registration")
        let byName = service.endpoint("ok", "named").replacingOccurrences(of: "127.0.0.1", with: "localhost")
        #expect(
            try world.registerSubscription("named", user: "u1", try receiver.subscription(endpoint: byName)).status
                == 201)
        let id = try Self.push(world, #"{"to":{"user":"u1"},"payload":\#(Self.alert)}"#)
        let states = try Self.states(world, push: id)
        let delivery = try #require(states["named"])
        #expect(delivery.status == .failed, "\(delivery.status) \(delivery.reason ?? "")")
        #expect(delivery.reason?.contains("local addresses") == true, "\(delivery.reason ?? "")")
        #expect(service.requests().isEmpty, "the push service was never reached")
    }

    @Test("GET /v1/webpush/vapid is the VAPID key's public point, as the browser takes it; 404 without webpush")
    func applicationServerKey() throws {
        let world = try GatewayWorld(webPush: true)
        let answer = try world.request("GET", "/v1/webpush/vapid", token: world.adminToken)
        let key = try #require(answer.json?["application_server_key"]?.stringValue)
        let point = try #require(Base64URL.decode(key))
        #expect(point.count == 65 && point.first == 0x04, "the uncompressed P-256 point")
        var keyFile = Array(try Data(contentsOf: URL(fileURLWithPath: world.directory.file("vapid.jwk"))))
        #expect(key == (try VAPIDKey(wipingFileBytes: &keyFile)).publicKey, "the configured key's")
        let cli = try CLIRunner.run(
            ["keys", "public", "--application-server-key", "vapid.jwk"], in: world.directory.path)
        #expect(cli.status == 0 && cli.output == key + "\n", "the CLI prints the same: \(cli.output) \(cli.errors)")
        let without = try GatewayWorld()
        let missing = try without.request("GET", "/v1/webpush/vapid", token: without.adminToken)
        #expect(missing.status == 404 && missing.errorCode == "not-found")
    }

    @Test(
        "a subscription is checked member by member, against the configuration's push services, and kept apart from APNs members"
    )
    func registration() throws {
        let world = try GatewayWorld(
            settings:
                #""webpush": {"vapid_key_file": "vapid.jwk", "subject": "mailto:ops@example.com", "allowed_hosts": ["push.example.com"], "navigate": "https://shop.example.com/"}"#,
            vapidKey: true)
        let receiver = try WebPushReceiver.generate()
        let good = try receiver.subscription(endpoint: "https://push.example.com/s/1").json
        func put(_ subscription: JSONValue, extra: [(String, JSONValue)] = []) throws -> GatewayHTTP.Answer {
            let body = JSONObject([("user", .string("u1")), ("subscription", subscription)] + extra)
            return try world.request(
                "PUT", "/v1/devices/browser", json: JSONWriter.string(.object(body)), token: world.adminToken)
        }
        func changed(_ path: [String], _ value: JSONValue?) -> JSONValue {
            var object = good
            if path.count == 1 {
                object[path[0]] = value
            } else if var keys = object["keys"]?.objectValue {
                keys[path[1]] = value
                object["keys"] = .object(keys)
            }
            return .object(object)
        }
        var withExpiry = good
        withExpiry["expirationTime"] = .null
        #expect(try put(.object(withExpiry)).status == 201, "PushSubscription.toJSON() as browsers give it")
        let cases: [(JSONValue, String, Int)] = [
            (changed(["keys", "p256dh"], .string("BAAA")), "$.subscription.keys.p256dh", 400),
            (changed(["keys", "auth"], .string("c2hvcnQ")), "$.subscription.keys.auth", 400),
            (changed(["endpoint"], .string("http://push.example.com/s/1")), "$.subscription.endpoint", 400),
            (changed(["keys", "extra"], .string("x")), "$.subscription.keys.extra", 400),
            (changed(["endpoint"], .string("https://evil.example/s/1")), "$.subscription.endpoint", 422),
            (.string("nope"), "$.subscription", 400),
        ]
        for (subscription, path, status) in cases {
            let answer = try put(subscription)
            #expect(answer.status == status, "\(path): \(answer.json.map { JSONWriter.string(.object($0)) } ?? "")")
            #expect(answer.json?["error"]?.objectValue?["path"] == .string(path))
        }
        let mixed = try put(.object(good), extra: [("token", .string(GatewayWorld.deviceToken("00aa", 1)))])
        #expect(mixed.status == 400 && mixed.json?["error"]?.objectValue?["path"] == .string("$.token"))

        let apnsOnly = try GatewayWorld()
        let body = JSONObject([("user", .string("u1")), ("subscription", .object(good))])
        let refused = try apnsOnly.request(
            "PUT", "/v1/devices/browser", json: JSONWriter.string(.object(body)), token: apnsOnly.adminToken)
        #expect(refused.status == 422, "a gateway without \"webpush\" takes no subscription")
    }

    @Test(
        "a stored subscription delivery no request can be made of fails InvalidDelivery, logged, and the next one goes")
    func invalidStoredDelivery() throws {
        let world = try GatewayWorld(webPush: true)
        // A row no API would have stored (a restored or hand-edited database): no URL at all.
        let broken = Device(
            app: .default, id: "broken", user: "u9",
            channel: .webPush(endpoint: "not a url", p256dh: "x", auth: "y"), registeredAt: 1, unregisteredAt: nil)
        _ = try world.store.putDevice(broken)
        _ = try world.store.acceptPush(
            id: "broken-push", in: .default, idempotencyKey: nil, requestHash: [], at: GatewayClock.milliseconds(),
            deliveries: [NewDelivery(device: broken, headers: [], body: [1, 2, 3], expiration: nil)])
        #expect(
            try world.eventually {
                try world.store.push(id: "broken-push", in: .default)?.deliveries.first?.status == .failed
            })
        let ended = try #require(try world.store.push(id: "broken-push", in: .default)?.deliveries.first)
        #expect(ended.reason == "InvalidDelivery" && ended.attempts == 0, "\(ended)")
        try world.registerSubscription("laptop", user: "u1", service: 0)
        let next = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":{"aps":{"alert":"hi"}}}"#,
            token: world.adminToken)
        let id = try #require(next.json?["id"]?.stringValue)
        #expect(try world.eventually { try world.store.push(id: id, in: .default)?.deliveries.first?.status == .sent })
    }

    @Test(
        "a payload whose service-worker content does not fit in a Web Push message is refused with 422, nothing stored")
    func tooLarge() throws {
        let world = try GatewayWorld(
            settings: #""limits": {"deliveries_per_second": 1, "deliveries_burst": 1}"#, webPush: true)
        try world.registerSubscription("laptop", user: "u1", service: 0)
        let filler = String(repeating: "x", count: 3_990)
        let answer = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":{"aps":{"alert":"hi"},"filler":"\#(filler)"}}"#,
            token: world.adminToken)
        #expect(answer.status == 422 && answer.json?["error"]?.objectValue?["path"] == .string("$.payload"))
        #expect(try world.store.statistics().deliveries.isEmpty)
        let next = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":{"aps":{"alert":"hi"}}}"#,
            token: world.adminToken)
        #expect(next.status == 202, "the refused push gave back the delivery it spent: \(next.status)")
    }

    @Test("truncate shortens a long alert body for APNs and for Web Push alike, as pushseal encrypt --truncate does")
    func truncate() throws {
        let world = try GatewayWorld(webPush: true)
        try world.registerDevice("phone", user: "u1", token: GatewayWorld.deviceToken("00aa", 1))
        #expect(try world.registerSubscription("laptop", user: "u1", service: 0).status == 201)
        let long = String(repeating: "Ünïcødé 🚚 ", count: 400)
        let json = #"{"to":{"user":"u1"},"payload":{"aps":{"alert":{"title":"Order 1042","body":"\#(long)"}}}}"#
        let refused = try world.request("POST", "/v1/pushes", json: json, token: world.adminToken)
        #expect(refused.status == 422 && refused.errorPath == "$.payload", "without truncate: too large")
        let truncating = json.dropLast() + #","options":{"truncate":true}}"#
        let answer = try world.request("POST", "/v1/pushes", json: String(truncating), token: world.adminToken)
        #expect(
            answer.status == 202 && answer.json?["truncated"] == .number(JSONNumber(2)),
            "\(answer.json.map { JSONWriter.string(.object($0)) } ?? "")")
        let id = try #require(answer.json?["id"]?.stringValue)
        #expect(try Self.states(world, push: id).values.allSatisfy { $0.status == .sent })
        let request = try #require(world.apns.requests().first)
        let opened = try CLIRunner.run(
            ["decrypt", "--store", "store-phone"], input: Data(try #require(request["body"] as? String).utf8),
            in: world.directory.path)
        let line = try #require(try JSONParser.parse(opened.output.trimmingCharacters(in: .newlines)).objectValue)
        let apnsBody = try #require(line["notification"]?.objectValue?["body"]?.stringValue)
        let content = try Self.content(try #require(world.pushServices[0].requests().first))
        let webBody = try #require(content["notification"]?.objectValue?["body"]?.stringValue)
        for body in [apnsBody, webBody] {
            #expect(body.hasSuffix("…") && long.hasPrefix(String(body.dropLast())) && body.count < long.count)
        }
        let small = try world.request(
            "POST", "/v1/pushes",
            json: #"{"to":{"user":"u1"},"payload":{"aps":{"alert":{"body":"short"}}},"options":{"truncate":true}}"#,
            token: world.adminToken)
        #expect(small.status == 202 && small.json?["truncated"] == nil, "nothing to shorten: no member")
        let invalid = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":{"aps":{}},"options":{"truncate":1}}"#,
            token: world.adminToken)
        #expect(invalid.status == 400 && invalid.errorPath == "$.options.truncate")
    }
}

/// `POST /v1/devices/{id}/test` (gateway-v1.md, "Devices").
@Suite("pushseal-gateway test pushes", .serialized)
struct GatewayTestPushTests {
    @Test("a test push reaches an APNs device and a subscription sealed, answered with its delivery; refusals named")
    func testPushes() throws {
        let world = try GatewayWorld(webPush: true)
        let token = GatewayWorld.deviceToken("00aa", 1)
        try world.registerDevice("phone", user: "u1", token: token)
        try world.registerSubscription("laptop", user: "u1", service: 0)
        for id in ["phone", "laptop"] {
            let answer = try world.request("POST", "/v1/devices/\(id)/test", token: world.adminToken)
            #expect(answer.status == 200, "\(id): \(answer.json.map { JSONWriter.string(.object($0)) } ?? "")")
            let delivery = answer.json?["delivery"]?.objectValue
            #expect(delivery?["status"] == .string("sent") && delivery?["device"] == .string(id))
        }
        let body = try #require(world.apns.requests().first { $0["token"] as? String == token }?["body"] as? String)
        #expect(!body.contains(AppConfiguration.defaultTestNotification.body), "sealed like any push")
        let opened = try CLIRunner.run(
            ["decrypt", "--store", "store-phone"], input: Data(body.utf8), in: world.directory.path)
        #expect(opened.output.contains(AppConfiguration.defaultTestNotification.title), "\(opened.output)")
        let content = try GatewayWebPushTests.content(try #require(world.pushServices[0].requests().first))
        let notification = content["notification"]?.objectValue
        #expect(notification?["title"] == .string(AppConfiguration.defaultTestNotification.title))
        #expect(
            notification?["navigate"] == .string("https://shop.example.com/notifications"), "the configured default")
        #expect(notification?["data"]?.objectValue?["pushseal_test"] == .bool(true))

        #expect(try world.request("POST", "/v1/devices/nobody/test", token: world.adminToken).status == 404)
        let reader = try GatewayWorld.token(in: world.store, scopes: [.read])
        #expect(try world.request("POST", "/v1/devices/phone/test", token: reader).status == 403)
        try world.registerDevice("gone", user: "u2", token: GatewayWorld.deviceToken("0411", 2))
        let first = try world.request("POST", "/v1/devices/gone/test", token: world.adminToken)
        #expect(first.status == 200 && first.json?["delivery"]?.objectValue?["status"] == .string("unregistered"))
        let again = try world.request("POST", "/v1/devices/gone/test", token: world.adminToken)
        #expect(again.status == 422 && again.errorCode == "unprocessable", "an unregistered device is not tested")
    }
}
