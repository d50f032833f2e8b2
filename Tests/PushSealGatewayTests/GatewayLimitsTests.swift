import Foundation
import PushSealCore
import PushSealGatewayModel
import PushSealTestSupport
import Testing

@testable import PushSealGateway

/// Per-token rate limits (gateway-v1.md, "Limits"): requests and deliveries, each with a burst,
/// answered 429 with `Retry-After` and counted in the metrics.
@Suite("pushseal-gateway rate limits", .serialized)
struct GatewayLimitsTests {
    static let alert = #"{"aps":{"alert":{"title":"Order 1042","body":"Shipped"}}}"#

    @Test(
        "a token over its request rate is answered 429 with Retry-After; another token is not, and the rate comes back")
    func requests() throws {
        let world = try GatewayWorld(settings: #""limits": {"requests_per_second": 1, "requests_burst": 3}"#)
        let other = try GatewayWorld.token(in: world.store, scopes: [.read])
        for _ in 1...3 {
            #expect(try world.request("GET", "/v1/devices/a", token: world.adminToken).status == 404)
        }
        let refused = try world.request("GET", "/v1/devices/a", token: world.adminToken)
        #expect(refused.status == 429 && refused.errorCode == "rate-limited")
        #expect(refused.headers["retry-after"] == "1", "\(refused.headers)")
        #expect(try world.request("GET", "/v1/devices/a", token: other).status == 404, "each token has its own rate")
        #expect(try world.request("GET", "/healthz").status == 200, "probes are not limited")
        Thread.sleep(forTimeInterval: 1.1)
        #expect(try world.request("GET", "/v1/devices/a", token: world.adminToken).status == 404, "a second later")
        let metrics = String(decoding: try world.request("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"pushseal_gateway_rate_limited_total{limit="requests"} 1"#))
    }

    @Test(
        "deliveries are counted per device reached; a push above the burst is 422, over the rate 429, a repeat is free")
    func deliveries() throws {
        let world = try GatewayWorld(settings: #""limits": {"deliveries_per_second": 1, "deliveries_burst": 2}"#)
        for index in 1...3 {
            try world.registerDevice("phone-\(index)", user: "u1", token: GatewayWorld.deviceToken("00aa", index))
        }
        func push(_ to: String, key: String? = nil) throws -> GatewayHTTP.Answer {
            let idempotency = key.map { #","idempotency_key":"\#($0)""# } ?? ""
            return try world.request(
                "POST", "/v1/pushes", json: #"{"to":\#(to),"payload":\#(Self.alert)\#(idempotency)}"#,
                token: world.adminToken)
        }
        let tooMany = try push(#"{"user":"u1"}"#)
        #expect(tooMany.status == 422 && tooMany.errorCode == "too-many-deliveries" && tooMany.errorPath == "$.to")
        #expect(try push(#"{"devices":["phone-1"]}"#, key: "k1").status == 202)
        #expect(try push(#"{"devices":["phone-1"]}"#, key: "k1").json?["repeated"] == .bool(true))
        #expect(try push(#"{"devices":["phone-2"]}"#).status == 202, "the repeat gave its delivery back")
        let limited = try push(#"{"devices":["phone-3"]}"#)
        #expect(limited.status == 429 && limited.errorCode == "rate-limited" && limited.headers["retry-after"] != nil)
        let retried = try push(#"{"devices":["phone-1"]}"#, key: "k1")
        #expect(retried.status == 202 && retried.json?["repeated"] == .bool(true), "a retry at the limit is answered")
        #expect(try push(#"{"devices":["nobody"]}"#).status == 202, "a push that reaches no device costs nothing")
        let metrics = String(decoding: try world.request("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"pushseal_gateway_rate_limited_total{limit="deliveries"} 1"#))
    }

    @Test("a token's bucket never holds more than its burst, however long it rested")
    func bucketCappedAtBurst() throws {
        let limiter = RateLimiter(RateLimitSettings.messages(perSecond: 1, burst: 2))
        try limiter.spend(2, of: .messages, token: "t")
        Thread.sleep(forTimeInterval: 3.2)  // enough rest to refill 3.2, were the burst not the cap
        try limiter.spend(2, of: .messages, token: "t")
        #expect(throws: APIError.self, "only the burst came back") { try limiter.spend(1, of: .messages, token: "t") }
    }

    @Test("max_deliveries_per_push: a push reaching exactly the limit is taken, one more device is 422")
    func deliveriesPerPushAtTheLimit() throws {
        let world = try GatewayWorld(settings: #""max_deliveries_per_push": 3"#)
        for index in 1...7 {  // user three has three devices, user four four
            try world.registerDevice(
                "phone-\(index)", user: index <= 3 ? "three" : "four", token: GatewayWorld.deviceToken("00aa", index))
        }
        let exactly = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"three"},"payload":\#(Self.alert)}"#, token: world.adminToken)
        #expect(exactly.status == 202 && exactly.json?["deliveries"] == .number(JSONNumber(3)), "\(exactly.status)")
        let over = try world.request(
            "POST", "/v1/pushes", json: #"{"to":{"user":"four"},"payload":\#(Self.alert)}"#, token: world.adminToken)
        #expect(over.status == 422 && over.errorCode == "too-many-deliveries", "\(over.status)")
    }

    @Test("limits are checked: a burst needs its rate, values are 1 to 1,000,000")
    func configuration() throws {
        func refusal(_ limits: String) -> String {
            do {
                _ = try RateLimitSettings(try JSONParser.parse(limits), at: JSONPath.root.member("limits"))
                return ""
            } catch {
                return "\(error)"
            }
        }
        #expect(refusal(#"{"requests_burst": 5}"#).contains("$.limits.requests_burst needs requests_per_second"))
        #expect(refusal(#"{"deliveries_per_second": 0}"#).contains("$.limits.deliveries_per_second must be an integer"))
        #expect(
            refusal(#"{"pushes_per_second": 5}"#).contains("$.limits.pushes_per_second is not a configuration member"))
        #expect(refusal(#"{"requests_per_second": 5}"#).isEmpty)
    }
}
