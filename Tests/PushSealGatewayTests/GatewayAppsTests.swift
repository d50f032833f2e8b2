import Foundation
import PushSealCore
import PushSealGatewayModel
import PushSealGatewayStorage
import PushSealTestSupport
import Testing

@testable import PushSealGateway

/// Several apps on one gateway (gateway-v1.md, "Apps"): each app's pushes signed by its own keys
/// over connections of their own, a key per topic, a refused key holding its own app alone, fair
/// claims, a removed app's deliveries left waiting, status and metrics by app, and tokens made for
/// an app. Retention by app is `AppRetentionTests`'.
@Suite("pushseal-gateway apps")
struct GatewayAppsTests {
    /// The mock's log lines answered 200, once `count` are in.
    static func sentRequests(_ apns: MockAPNs, count: Int, world: GatewayWorld) -> [[String: Any]] {
        _ = world.eventually { apns.requests().filter { $0["status"] as? Int == 200 }.count >= count }
        return apns.requests().filter { $0["status"] as? Int == 200 }
    }

    /// A gateway of two apps, `default` and `news`, and an admin token of `news`.
    static func twoApps(_ backend: GatewayBackend) throws -> (world: GatewayWorld, news: AppID, newsToken: String) {
        let news = try #require(AppID("news"))
        let world = try GatewayWorld(backend, otherApp: news)
        return (world, news, try GatewayWorld.token(in: world.store, scopes: [.admin], app: news))
    }

    @Test(
        "two apps' pushes, interleaved: each signed by its app's key, on connections of that key alone, to the device of that app",
        arguments: GatewayBackend.allCases)
    func keysPerApp(_ backend: GatewayBackend) throws {
        let (world, _, newsToken) = try Self.twoApps(backend)
        #expect(
            try world.eventually {
                try world.store.listedApps().map { "\($0.id) \($0.retentionHours ?? 0)" } == ["default 72", "news 72"]
            }, "the heartbeat lists the apps served, with their retention")
        // One device id, one user, in each app: two devices.
        try world.registerDevice("phone", user: "u1", token: GatewayWorld.deviceToken("00aa", 1))
        let registered = try world.registerDevice(
            "phone", user: "u1", token: GatewayWorld.deviceToken("00bb", 1), topic: GatewayWorld.otherTopic,
            as: newsToken)
        #expect(registered.status == 201, "news's own phone is new: \(registered.status)")
        let wrongTopic = try world.registerDevice(
            "watch", user: "u1", token: GatewayWorld.deviceToken("00bb", 2), topic: "com.example.shop", as: newsToken)
        #expect(
            wrongTopic.status == 400 && wrongTopic.json?["error"]?.objectValue?["path"] == .string("$.topic"),
            "shop's topic is not news's: \(wrongTopic.status)")
        let push = #"{"to":{"user":"u1"},"payload":{"aps":{"alert":{"title":"Hi","body":"There"}}}}"#
        for _ in 0..<4 {
            for token in [world.adminToken, newsToken] {
                #expect(
                    try world.request("POST", "/v1/pushes", json: push, token: token).json?["deliveries"]
                        == .number(JSONNumber(1)))
            }
        }
        let sent = Self.sentRequests(world.apns, count: 8, world: world)
        #expect(sent.count == 8, "\(world.apns.requests().map { ($0["status"], $0["reason"]) })")
        var connectionsByKey: [String: Set<Int>] = [:]
        for request in sent {
            let token = request["token"] as? String ?? ""
            let kid = request["kid"] as? String ?? ""
            let topic = (request["headers"] as? [String: String])?["apns-topic"]
            if token.hasPrefix("00aa") {
                #expect(kid == MockAPNs.keyID && topic == "com.example.shop", "\(request)")
            } else {
                #expect(kid == GatewayWorld.otherKeyID && topic == GatewayWorld.otherTopic, "\(request)")
            }
            connectionsByKey[kid, default: []].insert(request["connection"] as? Int ?? -1)
        }
        let shopConnections = connectionsByKey[MockAPNs.keyID] ?? []
        let newsConnections = connectionsByKey[GatewayWorld.otherKeyID] ?? []
        #expect(!shopConnections.isEmpty && !newsConnections.isEmpty)
        #expect(shopConnections.isDisjoint(with: newsConnections), "a connection keeps to one key")
        let metrics = String(decoding: try world.request("GET", "/metrics").body, as: UTF8.self)
        // One store of agreements for both apps' sealers: one per device, in a bound that does
        // not grow with the apps.
        #expect(metrics.contains("pushseal_gateway_sender_agreements_held 2\n"))
        #expect(metrics.contains(#"pushseal_gateway_sender_agreements_total{source="reused"} 6"#))
        #expect(metrics.contains("held in memory, at most \(PushSealer.agreementCapacity)."))
        for app in ["default", "news"] {
            #expect(metrics.contains(#"pushseal_gateway_pushes_accepted_total{app="\#(app)"} 4"#), "\(app)")
            #expect(
                try world.eventually {
                    String(decoding: try world.request("GET", "/metrics").body, as: UTF8.self).contains(
                        #"pushseal_gateway_deliveries_total{app="\#(app)",status="sent",reason=""} 4"#)
                }, "\(app)")
        }
    }

    @Test(
        "a relay endpoint is its app's: a sender's message to news's phone goes out with news's key, and is news's push",
        arguments: GatewayBackend.allCases)
    func relayPerApp(_ backend: GatewayBackend) throws {
        let news = try #require(AppID("news"))
        let world = try GatewayWorld(
            backend, otherApp: news, appSettings: #""relay": {"public_url": "\#(GatewayRelayTests.publicURL)"}"#)
        let newsToken = try GatewayWorld.token(in: world.store, scopes: [.admin], app: news)
        try world.registerDevice(
            "phone", user: "u1", token: GatewayWorld.deviceToken("00bb", 1), topic: GatewayWorld.otherTopic,
            as: newsToken)
        let made = try CLIRunner.run(["keys", "webpush", "--store", "store-phone"], in: world.directory.path)
        let keys = try #require(try JSONParser.parse(made.output.trimmingCharacters(in: .newlines)).objectValue)
        let created = try world.request("POST", "/v1/devices/phone/webpush", json: "{}", token: newsToken)
        let endpoint = try #require(created.json?["endpoint"]?.stringValue)
        let message = try WebPushMessage.seal(
            Array(#"{"title":"Ada","body":"Hello"}"#.utf8),
            for: try WebPushSubscription(
                endpoint: endpoint, p256dh: keys["p256dh"]?.stringValue ?? "", auth: keys["auth"]?.stringValue ?? ""),
            paddingBlock: 1)
        let posted = try #require(
            try GatewayHTTP.send(
                "POST",
                endpoint.replacingOccurrences(
                    of: GatewayRelayTests.publicURL, with: "http://127.0.0.1:\(world.gateway.port)"),
                body: Data(message), contentType: nil, headers: GatewayRelayTests.standardHeaders))
        #expect(posted.status == 201, "\(String(decoding: posted.body, as: UTF8.self))")
        let pushID = try #require(posted.headers["location"]?.split(separator: "/").last.map(String.init))
        #expect(try world.request("GET", "/v1/pushes/\(pushID)", token: newsToken).status == 200)
        #expect(try world.request("GET", "/v1/pushes/\(pushID)", token: world.adminToken).status == 404, "not shop's")
        #expect(try world.eventually { try world.hasEnded(push: pushID, in: news) })
        let request = try #require(world.apns.requests().first)
        #expect(request["kid"] as? String == GatewayWorld.otherKeyID && request["status"] as? Int == 200, "\(request)")
    }

    @Test(
        "a backlog of one app holds no other app's push: news's push goes out among the first claims while shop drains 3,000",
        arguments: GatewayBackend.allCases)
    func fairClaims(_ backend: GatewayBackend) throws {
        let (world, _, newsToken) = try Self.twoApps(backend)
        // shop's backlog: 3,000 deliveries due at once, stored as one push (sealed-looking, so
        // that the mock answers 200).
        let backlogDevice = Device(
            app: .default, id: "backlog", user: "u-backlog",
            channel: .apns(
                token: GatewayWorld.deviceToken("00ab", 1), topic: "com.example.shop", environment: .production,
                publicKeyJWK: "{}"),
            registeredAt: 1, unregisteredAt: nil)
        _ = try world.store.putDevice(backlogDevice)
        let sealed = Array(#"{"enc":"AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}"#.utf8)
        let delivery = NewDelivery(
            device: backlogDevice, headers: [("apns-topic", "com.example.shop"), ("apns-push-type", "alert")],
            body: sealed, expiration: nil)
        try world.registerDevice(
            "phone", user: "u1", token: GatewayWorld.deviceToken("00bb", 1), topic: GatewayWorld.otherTopic,
            as: newsToken)
        _ = try world.store.acceptPush(
            id: "backlog", in: .default, idempotencyKey: nil, requestHash: [], at: GatewayClock.milliseconds(),
            deliveries: Array(repeating: delivery, count: 3_000))
        let pushed = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":{"aps":{"alert":"Hi"}}}"#, token: newsToken)
        #expect(pushed.status == 202)
        #expect(try world.eventually(60) { try world.hasEnded(push: "backlog") })
        let requests = world.apns.requests()
        let position = try #require(requests.firstIndex { ($0["token"] as? String ?? "").hasPrefix("00bb") })
        #expect(requests.count == 3_001 && requests.allSatisfy { $0["status"] as? Int == 200 })
        // news's push is taken by the next claim that begins with news, and waits in its worker
        // for at most APNsSender.switchAfter more of shop's and the requests in flight (100),
        // while the other worker goes on with shop's: some 250 each, in all. Served in turn, it
        // would be the 3,001st.
        let times = requests.compactMap { $0["at"] as? Double }
        #expect(
            position < 1_000,
            "news's push was request \(position + 1) of \(requests.count), \(times[position] - times[0]) s after the first; the last came after \((times.last ?? 0) - times[0]) s"
        )
    }

    @Test(
        "a topic-specific key signs its topic's pushes, the team key the others'; the mock refuses a key its topic is not"
    )
    func topicSpecificKey() throws {
        let directory = TemporaryDirectory()
        let watchKeyID = "WATCHKEY01"
        let watchTopic = "com.example.shop.watch"
        let apns = try MockAPNs(in: directory, otherKeys: [(watchKeyID, [watchTopic])])
        defer { apns.stop() }
        let sender = try CLIRunner.run(
            ["keys", "generate", "--suite", "x25519", "--out", "sender-x25519.jwk"], in: directory.path)
        #expect(sender.status == 0)
        let watchKey = try #require(apns.otherAuthKeys[watchKeyID])
        let json = """
            {"listen": "127.0.0.1:0", "database": "sqlite:gateway.db", "workers": 1,
             "sender_key_files": ["sender-x25519.jwk"],
             "apns": {"topics": ["com.example.shop", "\(watchTopic)"],
                      "keys": [{"auth_key_file": "\(apns.authKey)", "key_id": "\(MockAPNs.keyID)", "team_id": "\(MockAPNs.teamID)"},
                               {"auth_key_file": "\(watchKey)", "key_id": "\(watchKeyID)", "team_id": "\(MockAPNs.teamID)",
                                "topics": ["\(watchTopic)"]}],
                      "hosts": {"production": "\(apns.url)", "sandbox": "\(apns.url)"}, "ca_file": "\(apns.certificate)"}}
            """
        let path = try directory.write("gateway.json", json)
        let gateway = try Gateway(
            configuration: try GatewayConfiguration(json: Array(json.utf8), path: path), logging: false)
        defer { gateway.stop() }
        let store = try SQLiteGatewayStore(path: directory.file("gateway.db"))
        let admin = try GatewayWorld.token(in: store, scopes: [.admin])
        let senderPublic = try CLIRunner.run(["keys", "public", "sender-x25519.jwk"], in: directory.path).output
        for (id, topic, prefix) in [("phone", "com.example.shop", "00aa"), ("watch", watchTopic, "00cc")] {
            _ = try CLIRunner.run(["keys", "init", "--store", id], in: directory.path)
            let key = try CLIRunner.run(["keys", "rotate", "--store", id], in: directory.path).output
                .trimmingCharacters(in: .whitespacesAndNewlines)
            _ = try CLIRunner.run(
                ["keys", "import", "--store", id, "--sender"], input: Data(senderPublic.utf8), in: directory.path)
            let body =
                #"{"user":"u1","token":"\#(GatewayWorld.deviceToken(prefix, 1))","topic":"\#(topic)","environment":"production","key":\#(key)}"#
            let answer = try GatewayHTTP.send(
                "PUT", "http://127.0.0.1:\(gateway.port)/v1/devices/\(id)", body: Data(body.utf8), token: admin)
            #expect(answer?.status == 201)
        }
        let push = #"{"to":{"user":"u1"},"payload":{"aps":{"alert":{"title":"Hi","body":"There"}}}}"#
        let accepted = try GatewayHTTP.send(
            "POST", "http://127.0.0.1:\(gateway.port)/v1/pushes", body: Data(push.utf8), token: admin)
        #expect(accepted?.json?["deliveries"] == .number(JSONNumber(2)))
        let deadline = Date().addingTimeInterval(20)
        while apns.requests().count < 2, Date() < deadline { usleep(50_000) }
        let requests = apns.requests()
        #expect(requests.count == 2 && requests.allSatisfy { $0["status"] as? Int == 200 }, "\(requests)")
        for request in requests {
            let expected = (request["token"] as? String ?? "").hasPrefix("00cc") ? watchKeyID : MockAPNs.keyID
            #expect(request["kid"] as? String == expected, "\(request)")
        }
    }

    @Test(
        "an app no longer configured: its delivery waits unclaimed and holds no other push, its token is 403; a topic with no key is held NotConfigured",
        arguments: GatewayBackend.allCases)
    func removedApp(_ backend: GatewayBackend) throws {
        let world = try GatewayWorld(backend)
        let gone = try #require(AppID("gone"))
        let headers = [(name: "apns-topic", value: "com.example.shop"), (name: "apns-push-type", value: "alert")]
        // A device and a queued push of an app the configuration no longer has, and a push of
        // this app to a topic it no longer has.
        for (app, id, prefix) in [(gone, "gone-push", "00dd"), (AppID.default, "old-topic-push", "00ee")] {
            let device = Device(
                app: app, id: "old", user: "u2",
                channel: .apns(
                    token: GatewayWorld.deviceToken(prefix, 1), topic: "com.example.shop", environment: .production,
                    publicKeyJWK: "{}"),
                registeredAt: 1, unregisteredAt: nil)
            _ = try world.store.putDevice(device)
            let topic = app == gone ? headers : [(name: "apns-topic", value: "com.example.old")] + headers.dropFirst()
            _ = try world.store.acceptPush(
                id: id, in: app, idempotencyKey: nil, requestHash: [], at: GatewayClock.milliseconds(),
                deliveries: [
                    NewDelivery(device: device, headers: topic, body: Array(#"{"enc":"AQ"}"#.utf8), expiration: nil)
                ])
        }
        try world.registerDevice("phone", user: "u1", token: GatewayWorld.deviceToken("00aa", 1))
        let pushed = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":{"aps":{"alert":"Hi"}}}"#,
            token: world.adminToken)
        let pushID = try #require(pushed.json?["id"]?.stringValue)
        #expect(try world.eventually { try world.hasEnded(push: pushID) })
        #expect(try world.store.push(id: pushID, in: .default)?.deliveries.first?.status == .sent)
        #expect(
            try world.eventually {
                try world.store.push(id: "old-topic-push", in: .default)?.deliveries.first?.reason == "NotConfigured"
            })
        let held = try #require(try world.store.push(id: "old-topic-push", in: .default)?.deliveries.first)
        #expect(held.status == .queued && held.attempts == 0, "held, not failed: \(held)")
        let waiting = try #require(try world.store.push(id: "gone-push", in: gone)?.deliveries.first)
        #expect(waiting.status == .queued && waiting.attempts == 0 && waiting.reason == nil, "never claimed")
        #expect(
            !world.apns.requests().contains {
                let token = $0["token"] as? String ?? ""
                return token.hasPrefix("00dd") || token.hasPrefix("00ee")
            }, "neither sent")
        let goneToken = try GatewayWorld.token(in: world.store, scopes: [.admin], app: gone)
        let refused = try world.request("GET", "/v1/devices/old", token: goneToken)
        #expect(refused.status == 403 && refused.errorCode == "app-not-served", "\(refused.status)")
    }

    @Test(
        "a delivery this configuration cannot send is held NotConfigured as a refused key's are, and fails after the hold"
    )
    func notConfiguredHold() {
        let hour: Int64 = 3_600_000
        guard case .retry(let at, let reason) = DeliveryOutcome.notConfigured(acceptedAt: 0, at: hour) else {
            Issue.record("an hour old: held")
            return
        }
        #expect(reason == .gateway(.notConfigured) && at > hour)
        #expect(
            DeliveryOutcome.notConfigured(acceptedAt: 0, at: RetrySchedule.providerTokenHold)
                == .failed(reason: .gateway(.notConfigured)), "the hold is over")
    }

    @Test("token create --app: the token is that app's, token list says so; --all-apps makes an operator's token")
    func tokenCreateApp() throws {
        let directory = TemporaryDirectory()
        let app = { (name: String) in
            #""\#(name)": {"sender_key_files": ["s.jwk"], "apns": {"auth_key_file": "a.p8", "key_id": "KEYA000001", "team_id": "TEAM000001", "topics": ["com.example.\#(name)"]}}"#
        }
        _ = try directory.write(
            "gateway.json",
            #"{"listen": "127.0.0.1:0", "database": "sqlite:gateway.db", "apps": {\#(app("shop")), \#(app("news"))}}"#)
        func run(_ words: [String]) throws -> CLIRunner.Result {
            try CLIRunner.run(
                executable: GatewayProcessWorld.executable, words + ["--config", "gateway.json"], input: Data(),
                in: directory.path)
        }
        let missing = try run(["token", "create", "--scope", "read"])
        #expect(
            missing.status == 2
                && missing.errors.contains("token create needs --app NAME (one of shop, news), or --all-apps"))
        let unknown = try run(["token", "create", "--scope", "read", "--app", "default"])
        #expect(unknown.status == 2 && unknown.errors.contains("--app default is not an app of the configuration"))
        let made = try run(["token", "create", "--scope", "read", "--app", "news"])
        #expect(made.status == 0, "\(made.errors)")
        let id = try #require(AccessTokens.parse(made.output.trimmingCharacters(in: .whitespacesAndNewlines))?.id)
        let listed = try run(["token", "list"])
        let line = try #require(
            listed.output.split(separator: "\n").compactMap { try? JSONParser.parse(Array($0.utf8)).objectValue }
                .first { $0["id"] == .string(id) })
        #expect(line["app"] == .string("news"), "\(line)")
        let store = try SQLiteGatewayStore(path: directory.file("gateway.db"))
        #expect(try store.accessToken(id: id)?.app == AppID("news"))
        let both = try run(["token", "create", "--scope", "read", "--app", "news", "--all-apps"])
        #expect(both.status == 2 && both.errors.contains("--app NAME or --all-apps, not both"))
        let operatorMade = try run(["token", "create", "--scope", "read", "--all-apps"])
        let operatorID = try #require(
            AccessTokens.parse(operatorMade.output.trimmingCharacters(in: .whitespacesAndNewlines))?.id)
        let operatorRecord = try #require(try store.accessToken(id: operatorID))
        #expect(operatorRecord.app == nil, "an operator's token, over every app")
        let operatorLine = try run(["token", "list"]).output.split(separator: "\n").first { $0.contains(operatorID) }
        #expect(operatorLine?.contains(#""app":null"#) == true, "\(operatorLine ?? "")")
    }

    @Test(
        "the gateway's status and metrics break the queue and devices down by app; an app served by no worker here is shown, with a warning while it has deliveries waiting",
        arguments: GatewayBackend.allCases)
    func statusByApp(_ backend: GatewayBackend) throws {
        let (world, news, newsToken) = try Self.twoApps(backend)
        try world.registerDevice("phone", user: "u1", token: GatewayWorld.deviceToken("00aa", 1))
        for (id, token) in [
            ("phone", GatewayWorld.deviceToken("00bb", 1)), ("busy", GatewayWorld.deviceToken("5003", 2)),
        ] {
            let registered = try world.registerDevice(
                id, user: "u2", token: token, topic: GatewayWorld.otherTopic, as: newsToken)
            #expect(registered.status == 201)
        }
        // news's push: one delivery sent, one retried (the mock answers 503 to 5003…).
        let pushed = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u2"},"payload":{"aps":{"alert":"Hi"}}}"#, token: newsToken)
        let pushID = try #require(pushed.json?["id"]?.stringValue)
        #expect(
            try world.eventually {
                try world.store.push(id: pushID, in: news)?.deliveries.map(\.attempts).min() ?? 0 > 0
            })
        // An app this instance does not serve, with a device and a queued delivery.
        let gone = try #require(AppID("gone"))
        let goneDevice = AppIsolationStoreTests.device(gone, token: GatewayWorld.deviceToken("00dd", 1))
        _ = try world.store.putDevice(goneDevice)
        _ = try world.store.acceptPush(
            id: "gone-push", in: gone, idempotencyKey: nil, requestHash: [], at: GatewayClock.milliseconds(),
            deliveries: [NewDelivery(device: goneDevice, headers: [], body: [1], expiration: nil)])

        /// Each row of `apps`: its name, whether it is served, its queue's depth and its devices.
        func apps(_ status: JSONObject?) -> [String] {
            (status?["apps"]?.arrayValue ?? []).compactMap(\.objectValue).map { app in
                let queue = app["queue"]?.objectValue, devices = app["devices"]?.objectValue
                return [
                    app["app"]?.stringValue ?? "?", app["served"] == .bool(true) ? "served" : "not served",
                    "\(queue?["depth"]?.numberValue?.intValue ?? -1) queued",
                    "\(devices?["active"]?.numberValue?.intValue ?? -1) active",
                ].joined(separator: " ")
            }
        }
        let (text, record) = AccessTokens.make(scopes: [.read], in: nil, at: GatewayClock.milliseconds())
        try world.store.addAccessToken(record)
        let whole = try world.request("GET", "/v1/status", token: text)
        #expect(
            apps(whole.json)
                == [
                    "default served 0 queued 1 active", "news served 1 queued 2 active",
                    "gone not served 1 queued 1 active",
                ],
            "\(apps(whole.json))")
        let warnings = (whole.json?["attention"]?.arrayValue ?? []).compactMap {
            $0.objectValue?["message"]?.stringValue
        }
        #expect(
            warnings.contains {
                $0.hasPrefix("app gone is not served by this instance: 1 queued delivery waits")
            }, "\(warnings)")
        let newsStatus = try world.request("GET", "/v1/status", token: newsToken)
        #expect(apps(newsStatus.json) == ["news served 1 queued 2 active"], "an app's token sees its own app alone")

        let metrics = String(decoding: try world.request("GET", "/metrics").body, as: UTF8.self)
        for line in [
            #"pushseal_gateway_app_queue_depth{app="default"} 0"#, #"pushseal_gateway_app_queue_depth{app="news"} 1"#,
            #"pushseal_gateway_app_devices{app="news",state="active"} 2"#, "pushseal_gateway_queue_depth 2",
        ] {
            #expect(metrics.contains(line + "\n"), "\(line)")
        }
        #expect(!metrics.contains(#"app="gone""#), "the label's values are the configuration's apps")
    }

    @Test(
        "APNs refusing one app's key holds that app's deliveries alone: the other app's pushes, sent among them, all go out",
        arguments: GatewayBackend.allCases)
    func refusedKeyHoldsItsAppAlone(_ backend: GatewayBackend) throws {
        let news = try #require(AppID("news"))
        let world = try GatewayWorld(backend, otherApp: news, otherKeyRefused: true)
        let newsToken = try GatewayWorld.token(in: world.store, scopes: [.admin], app: news)
        try world.registerDevice("phone", user: "u1", token: GatewayWorld.deviceToken("00aa", 1))
        let registered = try world.registerDevice(
            "phone", user: "u1", token: GatewayWorld.deviceToken("00bb", 1), topic: GatewayWorld.otherTopic,
            as: newsToken)
        #expect(registered.status == 201)
        let push = #"{"to":{"user":"u1"},"payload":{"aps":{"alert":"Hi"}}}"#
        var pushes: [(app: AppID, id: String)] = []
        for _ in 0..<5 {
            for (app, token) in [(news, newsToken), (AppID.default, world.adminToken)] {
                let answer = try world.request("POST", "/v1/pushes", json: push, token: token)
                pushes.append((app, try #require(answer.json?["id"]?.stringValue)))
            }
        }
        func delivery(_ push: (app: AppID, id: String)) throws -> DeliveryState? {
            try world.store.push(id: push.id, in: push.app)?.deliveries.first
        }
        let settled = try world.eventually(20) {
            try pushes.allSatisfy { push in
                let state = try delivery(push)
                return push.app == .default ? state?.status == .sent : state?.reason == "InvalidProviderToken"
            }
        }
        let states = try pushes.map { try delivery($0).map { "\($0.status) \($0.reason ?? "")" } ?? "none" }
        #expect(settled, "\(states)")
        for push in pushes where push.app == news {
            #expect(try delivery(push)?.status == .queued, "held, not failed")
        }
        let sent = world.apns.requests().filter { $0["status"] as? Int == 200 }
        #expect(sent.count == 5 && sent.allSatisfy { $0["kid"] as? String == MockAPNs.keyID }, "\(sent.count)")
    }
}
