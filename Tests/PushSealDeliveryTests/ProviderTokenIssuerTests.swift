import Foundation
import PushSealCore
import PushSealPrimitives
import PushSealTestSupport
import Testing

@testable import PushSealDelivery

@Suite("Provider tokens")
struct ProviderTokenIssuerTests {
    /// A P-256 PKCS#8 key made for these tests (not a real APNs key).
    static let authKey = Array(
        """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg77ULc8CVsLs66npa
        UUn0d0vfiUlEUWE33YTsnqCSvXahRANCAASWzPnmRU42/lvNQyqScM8SJrmNJUUb
        oqDiF20fBGhweFGaaU67d5+FvMDtpgiWmWgR5JalUYfEGTrdvBNAcEl6
        -----END PRIVATE KEY-----
        """.utf8)

    final class FakeClock: @unchecked Sendable {
        var now = 1_800_000_000
    }

    static func decode(_ part: Substring) throws -> JSONObject {
        var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        let data = try #require(Data(base64Encoded: base64))
        return try #require(try JSONParser.parse(Array(data)).objectValue)
    }

    @Test("an ES256 JWT with kid, iss and iat; reused for 55 minutes, then replaced")
    func reuse() throws {
        let clock = FakeClock()
        let issuer = try ProviderTokenIssuer(authKeyPEM: Self.authKey, keyID: "KEY1234567", teamID: "TEAM123456") {
            clock.now
        }
        let first = try issuer.token()
        let parts = first.split(separator: ".")
        #expect(parts.count == 3)
        #expect(try Self.decode(parts[0]) == JSONObject([("alg", .string("ES256")), ("kid", .string("KEY1234567"))]))
        #expect(
            try Self.decode(parts[1])
                == JSONObject([("iss", .string("TEAM123456")), ("iat", .number(JSONNumber(1_800_000_000)))]))
        #expect(parts[2].count == 86, "a 64-byte r || s signature")
        clock.now += 54 * 60
        #expect(try issuer.token() == first)
        clock.now += 60
        let second = try issuer.token()
        #expect(second != first)
        #expect(issuer.issuedCount == 2)
    }

    @Test("the token's ES256 signature verifies under the key's public point, and fails after any edit")
    func signatureVerifies() throws {
        let issuer = try ProviderTokenIssuer(authKeyPEM: Self.authKey, keyID: "KEY1234567", teamID: "TEAM123456")
        let parts = try issuer.token().split(separator: ".")
        let signingInput = Array("\(parts[0]).\(parts[1])".utf8)
        let signature = try #require(Base64URL.decode(String(parts[2])))
        let key = try P256.VerifyingKey(x963Representation: P256.SigningKey(pkcs8PEM: Self.authKey).publicKey)
        #expect(key.isValidSignature(signature, for: signingInput))
        var forged = signature
        forged[40] ^= 0x01
        #expect(!key.isValidSignature(forged, for: signingInput))
        #expect(!key.isValidSignature(signature, for: signingInput + [0x20]))
        let stranger = try P256.PrivateKey()
        let otherKey = try P256.VerifyingKey(x963Representation: stranger.publicKey.x963Representation)
        #expect(!otherKey.isValidSignature(signature, for: signingInput))
    }

    @Test("after ExpiredProviderToken the token is replaced once, however many requests report it")
    func replacement() throws {
        let issuer = try ProviderTokenIssuer(authKeyPEM: Self.authKey, keyID: "KEY1234567", teamID: "TEAM123456")
        let rejected = try issuer.token()
        let replacement = try issuer.replace(rejected: rejected)
        #expect(replacement != rejected)
        #expect(try issuer.replace(rejected: rejected) == replacement, "a second report of the old token mints nothing")
        #expect(issuer.issuedCount == 2)
    }

    @Test("after InvalidProviderToken a fresh token is made only once the one in use is 20 minutes old")
    func renewalAfterRefusal() throws {
        let clock = FakeClock()
        let issuer = try ProviderTokenIssuer(authKeyPEM: Self.authKey, keyID: "KEY1234567", teamID: "TEAM123456") {
            clock.now
        }
        #expect(try issuer.renewAfterRefusal() == false, "no token yet: nothing to renew")
        let first = try issuer.token()
        clock.now += 19 * 60
        #expect(try issuer.renewAfterRefusal() == false, "APNs refuses updates more often than every 20 minutes")
        #expect(try issuer.token() == first)
        clock.now += 60
        #expect(try issuer.renewAfterRefusal() == true)
        #expect(try issuer.token() != first && issuer.issuedCount == 2)
    }

    @Test("a key that is not an unencrypted P-256 PKCS#8 key is refused, as are empty ids")
    func badKeys() {
        #expect(throws: DeliveryError.self) {
            try ProviderTokenIssuer(authKeyPEM: Array("nope".utf8), keyID: "KEY1234567", teamID: "TEAM123456")
        }
        #expect(throws: DeliveryError.self) {
            try ProviderTokenIssuer(authKeyPEM: Self.authKey, keyID: "", teamID: "TEAM123456")
        }
    }

    @Test(
        "a key id or team id that is not Apple's 10 characters A-Z 0-9 is refused: no member can be injected",
        arguments: [
            #"K","alg":"none"#, "KEY123456", "KEY12345678", "key1234567", "KEY123456\n", "KEY 123456",
            "KEY12345\u{212A}",
        ])
    func injectedIDs(_ id: String) throws {
        #expect(throws: DeliveryError.self) {
            try ProviderTokenIssuer(authKeyPEM: Self.authKey, keyID: id, teamID: "TEAM123456")
        }
        #expect(throws: DeliveryError.self) {
            try ProviderTokenIssuer(authKeyPEM: Self.authKey, keyID: "KEY1234567", teamID: id)
        }
    }

    @Test("the header and claims are exactly the expected members, whatever the ids")
    func exactMembers() throws {
        let issuer = try ProviderTokenIssuer(authKeyPEM: Self.authKey, keyID: "ABC123DEFG", teamID: "DEF123GHIJ") {
            1_800_000_000
        }
        let parts = try issuer.token().split(separator: ".")
        #expect(try Self.decode(parts[0]).members.map(\.name) == ["alg", "kid"])
        #expect(try Self.decode(parts[1]).members.map(\.name) == ["iss", "iat"])
    }

    @Test("the .p8 bytes are zeroed after use, whether the key was accepted or refused")
    func wipesAuthKey() throws {
        var accepted = Self.authKey
        _ = try ProviderTokenIssuer(wipingAuthKeyPEM: &accepted, keyID: "KEY1234567", teamID: "TEAM123456")
        #expect(accepted.count == Self.authKey.count && accepted.allSatisfy { $0 == 0 })
        var refused = Self.authKey
        #expect(throws: DeliveryError.self) {
            try ProviderTokenIssuer(wipingAuthKeyPEM: &refused, keyID: "bad", teamID: "TEAM123456")
        }
        #expect(refused.allSatisfy { $0 == 0 })
    }
}

@Suite("Retry policy")
struct RetryPolicyTests {
    let policy = RetryPolicy()

    func decide(
        _ status: Int?, _ reason: String? = nil, attempt: Int = 1, replaced: Bool = false, permanent: Bool = false
    )
        -> RetryPolicy.Decision
    {
        policy.decide(
            status: status, reason: reason, timestamp: 5, attempt: attempt, tokenReplaced: replaced,
            permanent: permanent, random: { $0.upperBound })
    }

    @Test("each answer class maps to its documented action")
    func decisions() {
        #expect(decide(200) == .sent)
        #expect(decide(400, "BadDeviceToken") == .failed("BadDeviceToken"))
        #expect(decide(413, "PayloadTooLarge") == .failed("PayloadTooLarge"))
        #expect(decide(403, "ExpiredProviderToken") == .replaceTokenAndRetry)
        #expect(decide(403, "ExpiredProviderToken", replaced: true) == .failed("ExpiredProviderToken"))
        #expect(decide(403, "InvalidProviderToken") == .failed("InvalidProviderToken"))
        #expect(decide(410, "Unregistered") == .unregistered(timestamp: 5, reason: "Unregistered"))
        #expect(decide(503, "ServiceUnavailable", attempt: 3) == .retry(afterSeconds: 5, reason: "ServiceUnavailable"))
        #expect(decide(503, "ServiceUnavailable", attempt: 4) == .gaveUp("ServiceUnavailable"))
        #expect(
            decide(nil, "Couldn't connect to server") == .retry(afterSeconds: 5, reason: "Couldn't connect to server"))
        #expect(decide(nil, "SSL peer certificate", permanent: true) == .failed("SSL peer certificate"))
    }

    @Test("429 backs off exponentially, up to the cap, then gives up")
    func throttling() {
        #expect(decide(429, attempt: 1) == .retry(afterSeconds: 1, reason: "HTTP 429"))
        #expect(decide(429, attempt: 3) == .retry(afterSeconds: 4, reason: "HTTP 429"))
        #expect(decide(429, attempt: 6) == .retry(afterSeconds: 32, reason: "HTTP 429"))
        #expect(decide(429, attempt: 7) == .gaveUp("HTTP 429"))
    }

    @Test("a server that cannot be reached: every job ends in one failed result naming the transport error")
    func unreachable() throws {
        var fast = RetryPolicy()
        fast.serverRetryDelay = 0.01...0.02
        let issuer = try ProviderTokenIssuer(
            authKeyPEM: ProviderTokenIssuerTests.authKey, keyID: "KEY1234567", teamID: "TEAM123456")
        let client = try APNsClient(
            endpoint: APNsEndpoint(baseURL: "https://127.0.0.1:9"), tokens: issuer, policy: fast)
        var results: [DeliveryResult] = []
        let jobs = try (1...5).map {
            DeliveryItem.job(
                try DeliveryJob(line: $0, deviceToken: String(repeating: "ab", count: 32), headers: [], body: []))
        }
        client.deliver(jobs) { results.append($0) }
        #expect(results.map(\.line) == [1, 2, 3, 4, 5])
        #expect(results.allSatisfy { $0.status == .failed && $0.attempts == 4 && $0.reason?.isEmpty == false })
    }
}
