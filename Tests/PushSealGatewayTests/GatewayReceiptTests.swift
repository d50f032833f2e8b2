import Foundation
import PushSealCore
import PushSealDecryptor
import PushSealGatewayModel
import PushSealGatewayStorage
import PushSealPrimitives
import PushSealTestSupport
import Testing

@testable import PushSealGateway

/// Receipts (gateway-v1.md, "Receipts"): a delivery of an app with `receipts` carries a display
/// capability sealed into its content and a failure capability beside the envelope; the device
/// reports with them what it showed, and `GET /v1/pushes/{id}` shows it. Nothing on the path can
/// report a good outcome, nor change another delivery's.
@Suite("pushseal-gateway receipts", .serialized)
struct GatewayReceiptTests {
    static let receipts = #""receipts": {"url": "https://push.example.com"}"#
    static let alert = #"{"aps":{"alert":{"title":"Order 1042","body":"Your parcel code is 7734-XQ"}}}"#

    /// One APNs delivery as the device got it: the payload around the envelope, its failure
    /// ticket, and what the device's own store opened (with the display ticket).
    struct Delivered {
        let payload: JSONObject
        let failure: ReceiptTicket
        let opened: DecryptionResult
        /// The delivery's id: the last component of its receipt URL.
        var id: String { String(failure.url.split(separator: "/").last ?? "") }
        /// The display ticket, taken out of the opened content.
        var display: ReceiptTicket? { opened.receipt }
    }

    /// The APNs payload sent to `token`, opened with `device`'s store.
    static func delivered(_ world: GatewayWorld, token: String, device: String) throws -> Delivered {
        #expect(world.eventually { world.apns.requests().contains { $0["token"] as? String == token } })
        let request = try #require(world.apns.requests().first { $0["token"] as? String == token })
        let body = try #require(request["body"] as? String)
        let payload = try #require(try JSONParser.parse(Array(body.utf8)).objectValue)
        let failure = try ReceiptTicket(json: try #require(payload[ReceiptTicket.member]))
        let decryptor = Decryptor(keyStore: FileKeyStore(directory: world.directory.file("store-\(device)")))
        return Delivered(payload: payload, failure: failure, opened: decryptor.prepare(payload))
    }

    /// The capability of `ticket`, as a device presents it.
    static func capability(_ ticket: ReceiptTicket?) -> String { String((ticket?.authorization ?? "").dropFirst(7)) }

    /// Posts a receipt for `delivery` with `capability`.
    static func post(_ world: GatewayWorld, _ delivery: String, _ capability: String?, _ body: String) throws
        -> GatewayHTTP.Answer
    {
        try #require(
            try GatewayHTTP.send(
                "POST", "http://127.0.0.1:\(world.gateway.port)/v1/receipts/\(delivery)", body: Data(body.utf8),
                headers: capability.map { ["Authorization": "Bearer \($0)"] } ?? [:]))
    }

    /// The delivery of push `push` as `GET /v1/pushes/{id}` shows it.
    static func shown(_ world: GatewayWorld, push: String) throws -> JSONObject {
        let answer = try world.request("GET", "/v1/pushes/\(push)", token: world.adminToken)
        return try #require(answer.json?["deliveries"]?.arrayValue?.first?.objectValue)
    }

    /// A gateway with receipts behind an HTTPS front (its URL the receipts' base), devices `a` of
    /// `u1` and `stranger` of `u9`, and one push to `u1` as device `a` got it.
    struct Fronted {
        let front: GatewayFetchTests.Front
        let world: GatewayWorld
        let push: String
        let delivered: Delivered

        init(_ backend: GatewayBackend) throws {
            front = try GatewayFetchTests.Front()
            world = try GatewayWorld(backend, appSettings: #""receipts": {"url": "\#(front.server.url)"}"#)
            try front.attach(world)
            let token = GatewayWorld.deviceToken("00aa", 1)
            try world.registerDevice("a", user: "u1", token: token)
            try world.registerDevice("stranger", user: "u9", token: GatewayWorld.deviceToken("00aa", 9))
            let accepted = try world.request(
                "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":\#(GatewayReceiptTests.alert)}"#,
                token: world.adminToken)
            push = try #require(accepted.json?["id"]?.stringValue)
            delivered = try GatewayReceiptTests.delivered(world, token: token, device: "a")
        }
    }

    static let displayed = #"{"outcome":"displayed"}"#
    static func degraded(_ reason: String) -> String { #"{"outcome":"degraded","reason":"\#(reason)"}"# }

    @Test(
        "both capabilities reach the device, the app never sees them; a failure capability reports only a failure, a displayed receipt replaces a degraded one, a repeat changes nothing",
        arguments: GatewayBackend.allCases)
    func displayAndFailure(_ backend: GatewayBackend) throws {
        let world = try GatewayWorld(backend, appSettings: Self.receipts)
        let token = GatewayWorld.deviceToken("00aa", 1)
        try world.registerDevice("a", user: "u1", token: token)
        let accepted = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":\#(Self.alert)}"#, token: world.adminToken)
        let push = try #require(accepted.json?["id"]?.stringValue)
        let delivered = try Self.delivered(world, token: token, device: "a")

        #expect(delivered.opened.status == .decrypted)
        let display = try #require(delivered.display, "the display ticket is sealed into the content")
        #expect(display.url == delivered.failure.url)
        #expect(delivered.failure.url == "https://push.example.com/v1/receipts/\(delivered.id)")
        #expect(Self.capability(display) != Self.capability(delivered.failure))
        #expect(
            delivered.opened.notification.userInfo[ReceiptTicket.member] == nil,
            "the app's userInfo carries no capability")
        #expect(delivered.opened.notification.body == "Your parcel code is 7734-XQ")
        let before = try Self.shown(world, push: push)
        #expect(before["id"] == .string(delivered.id) && before["display"] == .null, "\(before)")

        // A store without the device's key degrades with the failure ticket, taken out of what it shows.
        try world.registerDevice("stranger", user: "u9", token: GatewayWorld.deviceToken("00aa", 9))
        let stranger = Decryptor(keyStore: FileKeyStore(directory: world.directory.file("store-stranger")))
            .prepare(delivered.payload)
        #expect(stranger.status == .degraded && stranger.reason == .unknownKey)
        #expect(stranger.receipt?.authorization == delivered.failure.authorization)
        #expect(stranger.notification.userInfo[ReceiptTicket.member] == nil)
        #expect(stranger.notification.body == "Open the app to view it.")

        // The failure capability, on the path in clear, cannot say the content was shown.
        let forgedDisplay = try Self.post(world, delivered.id, Self.capability(delivered.failure), Self.displayed)
        #expect(forgedDisplay.status == 404)
        // Neither can a made-up capability, nor a missing one, nor a capability for another id.
        let random = Base64URL.encode(SecureRandom.bytes(16))
        #expect(try Self.post(world, delivered.id, random, Self.degraded("unknown-key")).status == 404)
        #expect(try Self.post(world, delivered.id, nil, Self.degraded("unknown-key")).status == 404)
        let otherID = Base64URL.encode(SecureRandom.bytes(16))
        #expect(try Self.post(world, otherID, Self.capability(display), Self.displayed).status == 404)
        #expect(try Self.shown(world, push: push)["display"] == .null, "refused receipts changed nothing")

        let failed = try Self.post(
            world, delivered.id, Self.capability(delivered.failure), Self.degraded("unknown-key"))
        #expect(failed.status == 204, "\(failed)")
        let degraded = try #require(try Self.shown(world, push: push)["display"]?.objectValue)
        #expect(degraded["outcome"] == .string("degraded") && degraded["reason"] == .string("unknown-key"))
        let now = Int(Date().timeIntervalSince1970 * 1_000)
        let at = try #require(degraded["at"]?.numberValue?.intValue, "milliseconds, as the API's other times")
        #expect((now - 60_000...now).contains(at), "\(degraded)")
        let repeated = try Self.post(world, delivered.id, Self.capability(delivered.failure), Self.degraded("timeout"))
        #expect(repeated.status == 204)
        #expect(try Self.shown(world, push: push)["display"]?.objectValue?["reason"] == .string("unknown-key"))

        #expect(try Self.post(world, delivered.id, Self.capability(display), Self.displayed).status == 204)
        let shown = try #require(try Self.shown(world, push: push)["display"]?.objectValue)
        #expect(shown["outcome"] == .string("displayed") && shown["reason"] == nil, "\(shown)")
        #expect(try Self.post(world, delivered.id, Self.capability(display), Self.degraded("timeout")).status == 204)
        #expect(try Self.shown(world, push: push)["display"]?.objectValue?["outcome"] == .string("displayed"))

        // Taken receipts are counted, repeats too; refused ones are not.
        let metrics = String(decoding: try world.request("GET", "/metrics").body, as: UTF8.self)
        for series in [
            #"pushseal_gateway_receipts_total{app="default",kind="apns",outcome="displayed"} 1"#,
            #"pushseal_gateway_receipts_total{app="default",kind="apns",outcome="degraded"} 3"#,
            #"pushseal_gateway_receipts_total{app="default",kind="webpush",outcome="degraded"} 0"#,
            #"pushseal_gateway_receipts_degraded_total{app="default",reason="unknown-key"} 1"#,
            #"pushseal_gateway_receipts_degraded_total{app="default",reason="timeout"} 2"#,
        ] {
            #expect(metrics.contains(series + "\n"), "\(series)")
        }
    }

    @Test(
        "a receipt that sets a display reaches the webhooks as delivery.degraded, then delivery.displayed; a repeat or a refusal sends nothing; the histogram times the display",
        arguments: GatewayBackend.allCases)
    func webhooksAndHistogram(_ backend: GatewayBackend) throws {
        let hooked = try GatewayWebhookTests.Hooked(backend, appSettings: Self.receipts)
        let (world, receiver) = (hooked.world, hooked.receiver)
        defer { withExtendedLifetime(hooked) {} }  // its directories hold the receiver's log
        let token = GatewayWorld.deviceToken("00aa", 1)
        try world.registerDevice("a", user: "u1", token: token)
        let accepted = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":\#(Self.alert)}"#, token: world.adminToken)
        let push = try #require(accepted.json?["id"]?.stringValue)
        let delivered = try Self.delivered(world, token: token, device: "a")
        let display = Self.capability(delivered.display)
        let failure = Self.capability(delivered.failure)
        func types() -> [String] { GatewayWebhookTests.events(receiver).compactMap { $0["type"] as? String } }
        #expect(world.eventually { types() == ["delivery.sent"] }, "\(types())")

        #expect(try Self.post(world, delivered.id, failure, Self.displayed).status == 404)
        #expect(try Self.post(world, delivered.id, failure, Self.degraded("key-store-unavailable")).status == 204)
        #expect(try Self.post(world, delivered.id, failure, Self.degraded("timeout")).status == 204)
        #expect(world.eventually { types().count == 2 }, "\(types())")
        #expect(try Self.post(world, delivered.id, display, Self.displayed).status == 204)
        #expect(try Self.post(world, delivered.id, display, Self.displayed).status == 204)
        // Events leave oldest first: once a later push's end arrives, any event the repeats had
        // queued would have arrived before it.
        let fence = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":\#(Self.alert)}"#, token: world.adminToken)
        #expect(fence.status == 202)
        #expect(world.eventually { types().count >= 4 })
        #expect(types() == ["delivery.sent", "delivery.degraded", "delivery.displayed", "delivery.sent"], "\(types())")

        let events = GatewayWebhookTests.events(receiver)
        let degraded = try #require(events.dropFirst().first?["data"] as? [String: Any])
        let displayed = try #require(events.dropFirst(2).first?["data"] as? [String: Any])
        let sent = try #require(events.first?["data"] as? [String: Any])
        for data in [degraded, displayed] {
            #expect(data["app"] as? String == "default" && data["push"] as? String == push)
            #expect(data["device"] as? String == "a" && data["user"] as? String == "u1")
            #expect(data["kind"] as? String == "apns" && data["status"] as? String == "sent")
            #expect(data["delivery"] as? String == delivered.id, "the id receipts name it by")
            #expect(data["apns_id"] as? String == sent["apns_id"] as? String && data["apns_id"] is String)
            #expect(data["finished_at"] as? Int == sent["finished_at"] as? Int)
            #expect(data["accepted_at"] as? Int == sent["accepted_at"] as? Int)
            #expect(data["attempts"] as? Int == 1)
            #expect((data["reported_at"] as? Int ?? 0) >= (sent["finished_at"] as? Int ?? .max))
        }
        #expect(degraded["outcome"] as? String == "degraded")
        #expect(degraded["reason"] as? String == "key-store-unavailable", "the first receipt's reason stands")
        #expect(displayed["outcome"] as? String == "displayed" && displayed["reason"] is NSNull)
        let everything = receiver.requests().map { "\($0)" }.joined()
        #expect(!everything.contains(display) && !everything.contains(failure), "no event carries a capability")
        #expect(try GatewayOpenAPITests.eventProblems(events) == "", "each event as the OpenAPI document says")

        // One display, timed from the delivery's sending to the displayed receipt.
        let metrics = String(decoding: try world.request("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"pushseal_gateway_sent_to_displayed_seconds_count{app="default"} 1"# + "\n"))
        #expect(metrics.contains(#"pushseal_gateway_sent_to_displayed_seconds_bucket{app="default",le="+Inf"} 1"#))
        let sum = metrics.split(separator: "\n").first {
            $0.hasPrefix(#"pushseal_gateway_sent_to_displayed_seconds_sum{app="default"} "#)
        }
        let seconds = try #require(sum.flatMap { Double($0.split(separator: " ").last ?? "") })
        let elapsed = Double((displayed["reported_at"] as? Int ?? 0) - (sent["finished_at"] as? Int ?? 0)) / 1000
        #expect(abs(seconds - elapsed) < 0.002, "\(seconds) s, the events say \(elapsed) s")
    }

    @Test(
        "pushseal decrypt --receipt posts what it opened, through an HTTPS front: degraded with the failure capability, then displayed; never without the flag, nor to a local address without --allow-local-fetch",
        arguments: GatewayBackend.allCases)
    func decryptPostsReceipts(_ backend: GatewayBackend) throws {
        let fronted = try Fronted(backend)
        let (front, world, push, delivered) = (fronted.front, fronted.world, fronted.push, fronted.delivered)
        let body = Data(JSONWriter.bytes(.object(delivered.payload)))
        func decrypt(_ store: String, _ options: [String]) throws -> (status: Int32, result: JSONObject) {
            let run = try CLIRunner.run(["decrypt", "--store", store] + options, input: body, in: world.directory.path)
            let result = try #require(try JSONParser.parse(run.output.trimmingCharacters(in: .newlines)).objectValue)
            return (run.status, result)
        }
        let trusted = ["--ca-file", front.server.certificate, "--allow-local-fetch"]

        // Support staff opening a captured push confirm nothing.
        let quiet = try decrypt("store-a", trusted)
        #expect(quiet.status == 0 && quiet.result["status"] == .string("decrypted") && quiet.result["receipt"] == nil)
        #expect(try Self.shown(world, push: push)["display"] == .null)
        // The front is on 127.0.0.1: refused unless allowed, and said so.
        let local = try decrypt("store-a", ["--receipt", "--ca-file", front.server.certificate])
        #expect(local.status == 1, "a receipt not taken fails the item")
        let refusal = try #require(local.result["receipt"]?.objectValue)
        #expect(refusal["posted"] == .bool(false) && refusal["outcome"] == .string("displayed"), "\(refusal)")
        #expect(refusal["error"]?.stringValue?.contains("local") == true, "\(refusal)")
        #expect(try Self.shown(world, push: push)["display"] == .null)

        // A store without the key posts the failure capability's degraded receipt.
        let stranger = try decrypt("store-stranger", ["--receipt"] + trusted)
        #expect(stranger.result["status"] == .string("degraded") && stranger.status == 1)
        #expect(
            stranger.result["receipt"]?.objectValue
                == JSONObject([
                    ("outcome", .string("degraded")), ("reason", .string("unknown-key")), ("posted", .bool(true)),
                ]))
        let degraded = try #require(try Self.shown(world, push: push)["display"]?.objectValue)
        #expect(degraded["outcome"] == .string("degraded") && degraded["reason"] == .string("unknown-key"))

        let opened = try decrypt("store-a", ["--receipt"] + trusted)
        #expect(opened.status == 0, "\(opened.result)")
        #expect(
            opened.result["receipt"]?.objectValue
                == JSONObject([("outcome", .string("displayed")), ("posted", .bool(true))]))
        let shown = try #require(try Self.shown(world, push: push)["display"]?.objectValue)
        #expect(shown["outcome"] == .string("displayed"), "the displayed receipt replaced the degraded one")

        // A push without receipts has nothing to post: the member is null, and nothing fails.
        let plain = JSONWriter.bytes(.object(try #require(try JSONParser.parse(Self.alert).objectValue)))
        let run = try CLIRunner.run(
            ["decrypt", "--store", "store-a", "--receipt"] + trusted, input: Data(plain), in: world.directory.path)
        #expect(run.status == 0 && run.output.contains(#""receipt":null"#), "\(run.output)")
    }

    @Test(
        "the independent Python peer, written from envelope-v1.md alone, posts a device's receipts: degraded with the failure ticket, displayed with the display ticket"
    )
    func pythonPeerPostsReceipts() throws {
        let fronted = try Fronted(.sqlite)
        let (front, world, push, delivered) = (fronted.front, fronted.world, fronted.push, fronted.delivered)
        func report(_ store: String) throws -> JSONObject? {
            let run = try CLIRunner.run(
                executable: try PythonPeer.interpreter.get(),
                [
                    PythonPeer.directory.appendingPathComponent("pushseal_receipt.py").path, "report", "--store",
                    world.directory.file(store), "--ca-file", front.server.certificate,
                ], input: Data(JSONWriter.bytes(.object(delivered.payload))), in: world.directory.path)
            #expect(run.status == 0, "\(run.output)\(run.errors)")
            return try JSONParser.parse(Array(run.output.utf8)).objectValue
        }
        #expect(
            try report("store-stranger")
                == JSONObject([
                    ("outcome", .string("degraded")), ("reason", .string("unknown-key")),
                    ("status", .number(JSONNumber(204))),
                ]))
        #expect(try Self.shown(world, push: push)["display"]?.objectValue?["reason"] == .string("unknown-key"))
        #expect(
            try report("store-a")
                == JSONObject([("outcome", .string("displayed")), ("status", .number(JSONNumber(204)))]))
        #expect(try Self.shown(world, push: push)["display"]?.objectValue?["outcome"] == .string("displayed"))
    }

    @Test(
        "a receipt's body is checked, naming the member; a batch answers each receipt in order and takes the good ones once",
        arguments: GatewayBackend.allCases)
    func bodiesAndBatch(_ backend: GatewayBackend) throws {
        let world = try GatewayWorld(backend, appSettings: Self.receipts)
        let tokens = (1...2).map { GatewayWorld.deviceToken("00aa", $0) }
        try world.registerDevice("a", user: "u1", token: tokens[0])
        try world.registerDevice("b", user: "u2", token: tokens[1])
        var pushes: [String] = []
        for user in ["u1", "u2"] {
            let accepted = try world.request(
                "POST", "/v1/pushes", json: #"{"to":{"user":"\#(user)"},"payload":\#(Self.alert)}"#,
                token: world.adminToken)
            pushes.append(try #require(accepted.json?["id"]?.stringValue))
        }
        let a = try Self.delivered(world, token: tokens[0], device: "a")
        let b = try Self.delivered(world, token: tokens[1], device: "b")
        let capability = Self.capability(a.display)
        for (body, path) in [
            (#"{"outcome":"shown"}"#, "$.outcome"), (Self.degraded("nope"), "$.reason"),
            (#"{"outcome":"degraded"}"#, "$.reason"), (#"{"outcome":"displayed","reason":"timeout"}"#, "$.reason"),
            (#"{"outcome":"displayed","extra":1}"#, "$.extra"),
        ] {
            let answer = try Self.post(world, a.id, capability, body)
            #expect(answer.status == 400 && answer.json?["error"]?.objectValue?["path"] == .string(path), "\(body)")
        }

        // One device's display capability is nothing for another's delivery.
        #expect(try Self.post(world, b.id, capability, Self.displayed).status == 404)

        let batch = """
            {"receipts": [
              {"delivery": "\(a.id)", "capability": "\(capability)", "outcome": "displayed"},
              {"delivery": "\(b.id)", "capability": "\(capability)", "outcome": "displayed"},
              {"delivery": "\(b.id)", "capability": "\(Self.capability(b.failure))", "outcome": "degraded", "reason": "key-store-unavailable"},
              {"delivery": "\(a.id)", "capability": "\(capability)", "outcome": "degraded", "reason": "timeout"}
            ]}
            """
        let answer = try world.request("POST", "/v1/receipts", json: batch)
        #expect(answer.status == 200, "\(answer)")
        let statuses = answer.json?["results"]?.arrayValue?.compactMap {
            $0.objectValue?["status"]?.numberValue?.intValue
        }
        #expect(statuses == [204, 404, 204, 204], "\(answer.json.map { JSONWriter.string(.object($0)) } ?? "")")
        #expect(try Self.shown(world, push: pushes[0])["display"]?.objectValue?["outcome"] == .string("displayed"))
        let bShown = try #require(try Self.shown(world, push: pushes[1])["display"]?.objectValue)
        #expect(bShown["outcome"] == .string("degraded") && bShown["reason"] == .string("key-store-unavailable"))

        let malformed = try world.request(
            "POST", "/v1/receipts",
            json:
                #"{"receipts":[{"delivery":"x","capability":"y","outcome":"displayed"},{"delivery":"x","outcome":"displayed"}]}"#
        )
        #expect(
            malformed.status == 400
                && malformed.json?["error"]?.objectValue?["path"] == .string("$.receipts[1].capability"),
            "a batch that is not one is refused whole, naming the receipt")
        let tooMany =
            "{\"receipts\": [" + Array(repeating: #"{"outcome":"displayed"}"#, count: 101).joined(separator: ",")
            + "]}"
        let refused = try world.request("POST", "/v1/receipts", json: tooMany)
        #expect(refused.status == 400 && refused.json?["error"]?.objectValue?["path"] == .string("$.receipts"))
    }

    @Test("options.receipt false leaves a push without receipts; the gateway's member is refused in a payload")
    func optedOut() throws {
        let world = try GatewayWorld(.sqlite, appSettings: Self.receipts)
        let token = GatewayWorld.deviceToken("00aa", 1)
        try world.registerDevice("a", user: "u1", token: token)
        let taken = try world.request(
            "POST", "/v1/pushes",
            json: #"{"to":{"user":"u1"},"payload":{"aps":{"alert":"x"},"pushseal_receipt":{}}}"#,
            token: world.adminToken)
        #expect(
            taken.status == 422 && taken.json?["error"]?.objectValue?["path"] == .string("$.payload.pushseal_receipt"))
        let accepted = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":\#(Self.alert),"options":{"receipt":false}}"#,
            token: world.adminToken)
        let push = try #require(accepted.json?["id"]?.stringValue)
        #expect(world.eventually { world.apns.requests().count == 1 })
        let body = try #require(world.apns.requests().first?["body"] as? String)
        #expect(!body.contains(ReceiptTicket.member))
        let shown = try Self.shown(world, push: push)
        #expect(shown["id"] == nil && shown["display"] == nil, "\(shown)")
    }

    @Test(
        "without receipts nothing changes: no member in the push, no id or display, /v1/receipts 404, options.receipt 422"
    )
    func withoutReceipts() throws {
        let world = try GatewayWorld(.sqlite)
        let token = GatewayWorld.deviceToken("00aa", 1)
        try world.registerDevice("a", user: "u1", token: token)
        let refused = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":\#(Self.alert),"options":{"receipt":true}}"#,
            token: world.adminToken)
        #expect(refused.status == 422 && refused.json?["error"]?.objectValue?["path"] == .string("$.options.receipt"))
        let accepted = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":\#(Self.alert)}"#, token: world.adminToken)
        let push = try #require(accepted.json?["id"]?.stringValue)
        #expect(world.eventually { world.apns.requests().count == 1 })
        let body = try #require(world.apns.requests().first?["body"] as? String)
        let payload = try #require(try JSONParser.parse(Array(body.utf8)).objectValue)
        #expect(payload.members.map(\.name) == ["aps", "enc"], "the payload of 1.3: \(body)")
        let shown = try Self.shown(world, push: push)
        #expect(shown["id"] == nil && shown["display"] == nil, "\(shown)")
        let id = Base64URL.encode(SecureRandom.bytes(16))
        let answer = try Self.post(world, id, Base64URL.encode(SecureRandom.bytes(16)), Self.displayed)
        #expect(answer.status == 404)
        #expect(try world.request("POST", "/v1/receipts", json: #"{"receipts":[]}"#).status == 404)
        let preflight = try #require(
            try GatewayHTTP.send("OPTIONS", "http://127.0.0.1:\(world.gateway.port)/v1/receipts/\(id)"))
        #expect(preflight.status == 404 && preflight.headers["access-control-allow-origin"] == nil)
        #expect(answer.headers["access-control-allow-origin"] == nil, "no receipts, no CORS")
    }

    @Test("browsers may post receipts from any origin: a preflight is 204, and every answer, 404 too, allows it")
    func crossOrigin() throws {
        let world = try GatewayWorld(.sqlite, appSettings: Self.receipts)
        let base = "http://127.0.0.1:\(world.gateway.port)/v1/receipts"
        let id = Base64URL.encode(SecureRandom.bytes(16))
        for url in [base, "\(base)/\(id)"] {
            let preflight = try #require(
                try GatewayHTTP.send(
                    "OPTIONS", url,
                    headers: [
                        "Origin": "https://shop.example.com", "Access-Control-Request-Method": "POST",
                        "Access-Control-Request-Headers": "authorization, content-type",
                    ]))
            #expect(preflight.status == 204, "\(url)")
            #expect(preflight.headers["access-control-allow-origin"] == "*")
            #expect(preflight.headers["access-control-allow-methods"] == "POST")
            #expect(preflight.headers["access-control-allow-headers"] == "Authorization, Content-Type")
            #expect(preflight.headers["access-control-max-age"] == "86400")
        }
        let refused = try Self.post(world, id, Base64URL.encode(SecureRandom.bytes(16)), Self.displayed)
        #expect(refused.status == 404 && refused.headers["access-control-allow-origin"] == "*")
        let put = try #require(
            try GatewayHTTP.send("PUT", "\(base)/\(id)", body: Data("{}".utf8), token: world.adminToken))
        #expect(put.status == 405 && put.headers["allow"] == "POST, OPTIONS", "\(put.headers)")
        // Elsewhere, nothing changes: the API is for backends, not browsers.
        let devices = try world.request("GET", "/v1/devices/a", token: world.adminToken)
        #expect(devices.headers["access-control-allow-origin"] == nil)
    }

    @Test("a Web Push subscription's content carries the display ticket beside notification, which a browser shows")
    func webPushContent() throws {
        let world = try GatewayWorld(.sqlite, webPush: true, appSettings: Self.receipts)
        try world.registerSubscription("laptop", user: "u1", service: 0)
        let accepted = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"u1"},"payload":\#(Self.alert)}"#, token: world.adminToken)
        let push = try #require(accepted.json?["id"]?.stringValue)
        #expect(world.eventually { !world.pushServices[0].requests().isEmpty })
        let content = try GatewayWebPushTests.content(try #require(world.pushServices[0].requests().first))
        #expect(content.members.map(\.name) == ["web_push", "notification", ReceiptTicket.member])
        #expect(content["notification"]?.objectValue?["data"]?.objectValue?[ReceiptTicket.member] == nil)
        let ticket = try ReceiptTicket(json: try #require(content[ReceiptTicket.member]))
        let id = String(try #require(ticket.url.split(separator: "/").last))
        #expect(try Self.shown(world, push: push)["id"] == .string(id))
        #expect(try Self.post(world, id, Self.capability(ticket), Self.displayed).status == 204)
        #expect(try Self.shown(world, push: push)["display"]?.objectValue?["outcome"] == .string("displayed"))
    }
}
