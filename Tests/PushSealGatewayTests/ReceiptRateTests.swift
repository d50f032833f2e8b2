import Foundation
import PushSealCore
import PushSealGatewayModel
import PushSealPrimitives
import Testing

@testable import PushSealGateway

/// Receipts need no access token, so each client address has its rate of them
/// (`http.receipts_per_second`, `receipts_burst`), and behind a trusted proxy the client is the
/// one `X-Forwarded-For` names (gateway-v1.md, "Receipts" and "Slow and greedy clients").
@Suite("receipts' rate per client address", .serialized)
struct ReceiptRateTests {
    static func address(_ text: String) throws -> IPAddress { try #require(IPAddress(text)) }

    static func proxies(_ json: String?) throws -> TrustedProxies {
        try TrustedProxies(json.map { try JSONParser.parse($0) }, at: JSONPath.root.member("trusted_proxies"))
    }

    @Test("ranges hold what their prefix names: IPv4 and IPv6, a mapped IPv4 address is IPv4, never across families")
    func ranges() throws {
        let proxies = try Self.proxies(#"["10.1.0.0/16", "2001:db8::/32", "192.0.2.9"]"#)
        for inside in ["10.1.255.3", "10.1.0.0", "2001:db8:ffff::1", "192.0.2.9", "::ffff:10.1.2.3"] {
            #expect(proxies.trusts(try Self.address(inside)), "\(inside)")
        }
        for outside in ["10.2.0.1", "192.0.2.10", "2001:db9::1", "::a01:203", "0.0.0.0"] {
            #expect(!proxies.trusts(try Self.address(outside)), "\(outside)")
        }
        let all = try Self.proxies(#"["0.0.0.0/0"]"#)
        #expect(all.trusts(try Self.address("203.0.113.7")))
        #expect(!all.trusts(try Self.address("::1")))
        #expect(try Self.proxies(nil).trusts(try Self.address("127.0.0.1")), "loopback by default")
        #expect(try Self.proxies(nil).trusts(try Self.address("::1")))
        #expect(try !Self.proxies(nil).trusts(try Self.address("192.0.2.1")))
        #expect(try !Self.proxies("[]").trusts(try Self.address("127.0.0.1")), "an empty list trusts none")
    }

    @Test("a wrong proxy is refused naming its element")
    func refusals() throws {
        for (json, path) in [
            (#"["10.0.0.0/33"]"#, "$.trusted_proxies[0]"), (#"["127.0.0.1", "localhost"]"#, "$.trusted_proxies[1]"),
            (#"["::1/129"]"#, "$.trusted_proxies[0]"), (#"["10.0.0.1/"]"#, "$.trusted_proxies[0]"),
            (#"[1]"#, "$.trusted_proxies[0]"), (#""127.0.0.1""#, "$.trusted_proxies"),
            (#"["[::1]"]"#, "$.trusted_proxies[0]"), (#"["10.0.0.1:80"]"#, "$.trusted_proxies[0]"),
        ] {
            #expect(throws: GatewayError.self, "\(json)") { try Self.proxies(json) }
            do {
                _ = try Self.proxies(json)
            } catch {
                #expect("\(error)".contains("\(path) must be"), "\(json): \(error)")
            }
        }
    }

    @Test(
        "the client is the peer, unless the peer is a trusted proxy: then the last address of X-Forwarded-For that is not one"
    )
    func client() throws {
        let proxies = try Self.proxies(#"["127.0.0.1", "10.0.0.0/8"]"#)
        let front = try Self.address("127.0.0.1")
        let phone = try Self.address("198.51.100.4").client
        func client(_ peer: String, _ header: String?) throws -> ClientAddress? {
            proxies.client(peer: try Self.address(peer), forwardedFor: header)
        }
        #expect(try client("198.51.100.4", "192.0.2.1") == phone, "a client's own header is ignored")
        #expect(try client("127.0.0.1", "198.51.100.4") == phone)
        #expect(try client("127.0.0.1", "192.0.2.1, 198.51.100.4") == phone, "what the client wrote before is not read")
        #expect(try client("127.0.0.1", "192.0.2.1,198.51.100.4 , 10.2.3.4") == phone, "through a second proxy")
        #expect(try client("127.0.0.1", nil) == front.client, "no header: the proxy itself")
        #expect(try client("127.0.0.1", "198.51.100.4, junk") == front.client, "an entry not an address stops")
        let first = try Self.address("10.9.9.9").client
        #expect(try client("127.0.0.1", "10.9.9.9") == first, "all trusted: the first")
        let v6 = try client("127.0.0.1", "2001:db8:1:2:aaaa::1")
        let sameNetwork = try Self.address("2001:db8:1:2:bbbb::9").client
        let nextNetwork = try Self.address("2001:db8:1:3::1").client
        #expect(v6 == sameNetwork, "an IPv6 client is its /64")
        #expect(v6 != nextNetwork)
        #expect(proxies.client(peer: nil, forwardedFor: "198.51.100.4") == nil)
    }

    @Test("a bucket that filled again is dropped once the buckets grow; one still spending is kept")
    func bucketsPruned() throws {
        let resting = RateLimiter(.receipts(perSecond: 1_000_000, burst: 100))
        let spending = RateLimiter(.receipts(perSecond: 1, burst: 100))
        for index in 0..<10_000 {
            try resting.spend(1, of: .receipts, token: "client-\(index)")
            try spending.spend(1, of: .receipts, token: "client-\(index)")
        }
        // A million per second refills a spent receipt in a microsecond: by each pruning, all but
        // the newest are full again.
        #expect(resting.bucketCount < 4_096, "\(resting.bucketCount)")
        #expect(spending.bucketCount == 10_000, "none had refilled, none is dropped")
        try spending.spend(99, of: .receipts, token: "client-0")
        #expect(throws: APIError.self, "a kept bucket still counts") {
            try spending.spend(1, of: .receipts, token: "client-0")
        }
    }

    @Test(
        "past its burst one client's receipts are 429 with Retry-After, a batch counts each receipt, another client is unaffected; a forwarded client is believed only from a trusted proxy"
    )
    func endpointLimited() throws {
        func world(trusting proxies: String) throws -> GatewayWorld {
            try GatewayWorld(
                .sqlite,
                settings: #""http": {"receipts_per_second": 1, "receipts_burst": 100, "trusted_proxies": \#(proxies)}"#,
                appSettings: GatewayReceiptTests.receipts)
        }
        func batch(_ count: Int) -> String {
            let receipt =
                #"{"delivery":"\#(Base64URL.encode(SecureRandom.bytes(16)))","capability":"\#(Base64URL.encode(SecureRandom.bytes(16)))","outcome":"displayed"}"#
            return #"{"receipts":[\#(Array(repeating: receipt, count: count).joined(separator: ","))]}"#
        }
        func post(_ world: GatewayWorld, _ body: String, from client: String? = nil) throws -> GatewayHTTP.Answer {
            try #require(
                try GatewayHTTP.send(
                    "POST", "http://127.0.0.1:\(world.gateway.port)/v1/receipts", body: Data(body.utf8),
                    headers: client.map { ["X-Forwarded-For": $0] } ?? [:]))
        }
        let fronted = try world(trusting: #"["127.0.0.1"]"#)
        #expect(try post(fronted, batch(99), from: "198.51.100.4").status == 200)
        let single = try GatewayReceiptTests.post(
            fronted, Base64URL.encode(SecureRandom.bytes(16)), Base64URL.encode(SecureRandom.bytes(16)),
            GatewayReceiptTests.displayed)
        #expect(single.status == 404, "the gateway's own address has its own bucket")
        let over = try post(fronted, batch(2), from: "198.51.100.4")
        #expect(over.status == 429 && over.errorCode == "rate-limited", "\(over.status)")
        #expect(over.headers["retry-after"] == "1" && over.headers["access-control-allow-origin"] == "*")
        #expect(try post(fronted, batch(1), from: "198.51.100.4").status == 200, "one was left")
        #expect(try post(fronted, batch(100), from: "203.0.113.7").status == 200, "another client has its own")
        #expect(try post(fronted, batch(1), from: "192.0.2.1, 198.51.100.4").status == 429, "a spoofed left entry")
        let metrics = String(decoding: try fronted.request("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"pushseal_gateway_rate_limited_total{limit="receipts"} 2"#))

        // Trusting no proxy, every forwarded name is the one peer, 127.0.0.1.
        let direct = try world(trusting: "[]")
        #expect(try post(direct, batch(100), from: "198.51.100.4").status == 200)
        #expect(try post(direct, batch(1), from: "203.0.113.7").status == 429)
    }
}
