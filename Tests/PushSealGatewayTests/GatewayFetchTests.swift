import Foundation
import PushSealCore
import PushSealGatewayModel
import PushSealGatewayStorage
import PushSealPrimitives
import PushSealTestSupport
import Testing

@testable import PushSealGateway

/// Content too large for an APNs payload, kept for the device to fetch (gateway-v1.md, "Fetched
/// content"): the relay behind an HTTPS front (`interop/python/tls_front.py`, as nginx in
/// production), a message of RFC 8030's full 4,096 bytes posted to it, the push carrying only a
/// sealed reference, and `pushseal decrypt` with the device's store fetching and opening it to
/// exactly what was sent.
@Suite("pushseal-gateway fetched content", .serialized)
struct GatewayFetchTests {
    /// An HTTPS front (started first, so that its URL can go into the configuration), then
    /// pointed at the gateway once it listens.
    struct Front {
        let server: LocalServer
        private let directory = TemporaryDirectory()

        init() throws {
            server = try LocalServer(
                script: "tls_front.py", ["serve", "--upstream-file", directory.file("gateway-port")], in: directory)
        }

        /// The path of `name` in the front's own directory (`gateway-port`: where it relays to).
        func directoryFile(_ name: String) -> String { directory.file(name) }

        /// Relays to `world`'s gateway from now on.
        func attach(_ world: GatewayWorld) throws {
            try "\(world.gateway.port)".write(toFile: directory.file("gateway-port"), atomically: true, encoding: .utf8)
        }
    }

    /// A relay whose `public_url` is an HTTPS front to the gateway.
    struct FrontedRelay {
        let relay: GatewayRelayTests.Relay
        let front: LocalServer
        private let frontServer: Front

        init(_ backend: GatewayBackend) throws {
            frontServer = try Front()
            front = frontServer.server
            relay = try GatewayRelayTests.Relay(backend, publicURL: front.url)
            try frontServer.attach(relay.world)
        }

        /// `pushseal decrypt` of `body`, trusting the front, allowed to reach it on loopback.
        func open(_ body: String) throws -> JSONObject {
            try relay.decrypt(body, options: ["--ca-file", front.certificate, "--allow-local-fetch"])
        }
    }

    /// A message of `count` bytes whose content is a Mastodon-shaped notification with a long body.
    static func longMessage(_ relay: GatewayRelayTests.Relay, count: Int) throws -> (message: [UInt8], body: String) {
        let message = try relay.message(count: count)
        // `message(count:)` fills the body with "a": the content is {"body":"aaa…"}.
        let body = String(repeating: "a", count: count - WebPushMessage.headerByteCount - 16 - 1 - 11)
        return (message, body)
    }

    @Test(
        "a message of 4,096 bytes: the push carries a sealed reference, the store keeps the ciphertext alone, the device fetches and opens it",
        arguments: GatewayBackend.allCases)
    func fullSizeMessage(_ backend: GatewayBackend) throws {
        let fronted = try FrontedRelay(backend)
        let relay = fronted.relay
        let endpoint = try relay.endpoint()
        let (message, text) = try Self.longMessage(relay, count: WebPushMessage.maximumByteCount)
        let answer = try relay.post(message, to: endpoint.local, headers: GatewayRelayTests.standardHeaders)
        #expect(answer.0 == 201, "\(answer)")
        #expect(relay.world.eventually { relay.forwarded().count == 1 })
        let body = try #require(relay.forwarded().first?["body"] as? String)
        #expect(body.utf8.count <= 4_096)
        let payload = try #require(try JSONParser.parse(Array(body.utf8)).objectValue)
        #expect(payload["webpush"] == nil && payload["enc"] != nil)
        #expect(!body.contains("/v1/fetch/"), "the reference is sealed: APNs never sees where to fetch")

        let opened = try fronted.open(body)
        #expect(opened["status"] == .string("decrypted"), "\(opened)")
        #expect(opened["fetched"] == .bool(true) && opened["format"] == .string("webpush"), "\(opened)")
        #expect(opened["notification"]?.objectValue?["body"] == .string(text))
        let name = String(try #require(endpoint.public.split(separator: "/").last).prefix(8))
        #expect(payload["webpush_endpoint"] == .string(name), "the endpoint in clear, as forwarded inline")
        #expect(
            opened["notification"]?.objectValue?["userInfo"]?.objectValue?["relayed"]?.objectValue?["endpoint"]
                == .string(name), "the fetched message is kept apart by its endpoint too")
        let again = try fronted.open(body)
        #expect(again["status"] == .string("decrypted"), "fetched again within the minute's grace: \(again)")

        let kept = try relay.world.store.fetchObjectCount()
        #expect(kept == 1)
        let rows = try fetchedBodies(relay.world)
        #expect(rows == [message], "the gateway keeps the message exactly as posted: ciphertext only")

        let local = try relay.decrypt(body, options: ["--ca-file", fronted.front.certificate])
        #expect(
            local["status"] == .string("degraded") && local["reason"] == .string("fetch-failed"),
            "a local destination is refused unless allowed: \(local)")
        #expect(local["notification"]?.objectValue?["body"] == .string("Open the app to view it."))
    }

    @Test(
        "GET /v1/fetch/{id}: 404 alike without the capability, with a wrong one, an unknown id; the fifth wrong one ends it"
    )
    func capability() throws {
        let fronted = try FrontedRelay(.sqlite)
        let relay = fronted.relay
        let world = relay.world
        let endpoint = try relay.endpoint()
        let (message, _) = try Self.longMessage(relay, count: 3_500)
        #expect(try relay.post(message, to: endpoint.local, headers: GatewayRelayTests.standardHeaders).0 == 201)
        let id = try #require(try fetchedIDs(world).first)
        let url = "http://127.0.0.1:\(world.gateway.port)/v1/fetch/\(id)"
        let wrong = Base64URL.encode([UInt8](repeating: 7, count: 32))
        for headers in [[:], ["Authorization": "Bearer \(wrong)"], ["Authorization": "Bearer short"]] {
            let answer = try #require(try GatewayHTTP.send("GET", url, contentType: nil, headers: headers))
            #expect(answer.status == 404, "\(headers)")
            #expect(String(decoding: answer.body, as: UTF8.self).contains("content to fetch does not exist"))
        }
        let unknown = try #require(
            try GatewayHTTP.send(
                "GET", "http://127.0.0.1:\(world.gateway.port)/v1/fetch/\(String(repeating: "A", count: 22))",
                contentType: nil, headers: ["Authorization": "Bearer \(wrong)"]))
        #expect(unknown.status == 404)
        // One wrong capability counted (neither the missing nor the malformed one reached the
        // store, nor the unknown id): four more end it.
        #expect(relay.world.eventually { relay.forwarded().count == 1 })
        let body = try #require(relay.forwarded().first?["body"] as? String)
        let early = try fronted.open(body)
        #expect(early["status"] == .string("decrypted"), "one wrong capability does not end it: \(early)")
        for _ in 0..<4 {
            _ = try GatewayHTTP.send("GET", url, contentType: nil, headers: ["Authorization": "Bearer \(wrong)"])
        }
        let opened = try fronted.open(body)
        #expect(
            opened["status"] == .string("degraded") && opened["reason"] == .string("fetch-expired"),
            "five wrong capabilities ended it: \(opened)")
        let metrics = String(decoding: try world.request("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"pushseal_gateway_fetch_requests_total{status="404"} 9"#), "\(metrics)")
        #expect(metrics.contains(#"pushseal_gateway_fetch_requests_total{status="200"} 1"#), "\(metrics)")
    }

    @Test(
        "the gateway's own push of 12 KB with options.fetch: kept as an envelope, fetched and opened whole; refused without it, over 16 KB, or without fetch",
        arguments: GatewayBackend.allCases)
    func ownPush(_ backend: GatewayBackend) throws {
        let front = try Front()
        let world = try GatewayWorld(backend, settings: #""fetch": {"public_url": "\#(front.server.url)"}"#)
        try front.attach(world)
        try world.registerDevice("phone", user: "u1", token: GatewayWorld.deviceToken("00aa", 1))
        let text = String(repeating: "A long message preview. ", count: 500)
        func push(_ body: String, options: String) throws -> GatewayHTTP.Answer {
            try world.request(
                "POST", "/v1/pushes",
                json:
                    #"{"to":{"user":"u1"},"payload":{"aps":{"alert":{"title":"Long","body":"\#(body)"},"thread-id":"t1"},"event_id":"e-\#(body.count)"},"options":{\#(options)}}"#,
                token: world.adminToken)
        }
        let refused = try push(text, options: "")
        #expect(refused.status == 422, "without options.fetch, as before: \(refused.json ?? JSONObject())")
        let accepted = try push(text, options: #""fetch":true,"clear":["thread-id"]"#)
        #expect(accepted.status == 202, "\(accepted.json ?? JSONObject())")
        #expect(accepted.json?["fetched"] == .number(JSONNumber(1)), "one delivery, fetched")
        #expect(world.eventually { world.apns.requests().count == 1 })
        let body = try #require(world.apns.requests().first?["body"] as? String)
        let payload = try #require(try JSONParser.parse(Array(body.utf8)).objectValue)
        #expect(payload["aps"]?.objectValue?["thread-id"] == .string("t1"), "a member left in clear stays in clear")
        let opened = try CLIRunner.run(
            ["decrypt", "--store", "store-phone", "--ca-file", front.server.certificate, "--allow-local-fetch"],
            input: Data(body.utf8), in: world.directory.path)
        let result = try #require(try JSONParser.parse(opened.output.trimmingCharacters(in: .newlines)).objectValue)
        #expect(result["status"] == .string("decrypted") && result["fetched"] == .bool(true), "\(result)")
        #expect(result["notification"]?.objectValue?["body"] == .string(text))
        #expect(result["format"] == nil, "an envelope, reported with its kid and suite")

        let huge = String(repeating: "x", count: PushSealer.maximumFetchedContentByteCount)
        let tooLarge = try push(huge, options: #""fetch":true"#)
        let tooLargeText = String(decoding: tooLarge.body, as: UTF8.self)
        #expect(tooLarge.status == 422 && tooLargeText.contains("16384"), "\(tooLargeText)")

        let plain = try GatewayWorld(backend)
        try plain.registerDevice("phone", user: "u1", token: GatewayWorld.deviceToken("00aa", 2))
        let nowhere = try plain.request(
            "POST", "/v1/pushes",
            json: #"{"to":{"user":"u1"},"payload":{"aps":{"alert":"hi"}},"options":{"fetch":true}}"#,
            token: plain.adminToken)
        let nowhereText = String(decoding: nowhere.body, as: UTF8.self)
        #expect(nowhere.status == 422 && nowhereText.contains("no fetch configuration"), "\(nowhereText)")
    }

    /// The ids of the objects `world`'s store keeps.
    private func fetchedIDs(_ world: GatewayWorld) throws -> [String] {
        try rows(world, "SELECT id FROM fetch_objects ORDER BY created_at").compactMap { $0[0].text }
    }

    /// The bodies of the objects `world`'s store keeps.
    private func fetchedBodies(_ world: GatewayWorld) throws -> [[UInt8]] {
        try rows(world, "SELECT body FROM fetch_objects ORDER BY created_at").compactMap { $0[0].blob }
    }

    private func rows(_ world: GatewayWorld, _ statement: String) throws -> [[DatabaseValue]] {
        let executor = try #require(world.store as? any SQLExecutor)
        return try executor.read(statement, [])
    }
}

extension GatewayStore {
    /// How many objects the store keeps to fetch.
    fileprivate func fetchObjectCount() throws -> Int {
        guard let executor = self as? any SQLExecutor else { return -1 }
        return Int(try executor.read("SELECT count(*) FROM fetch_objects", []).first?[0].integer ?? -1)
    }
}
