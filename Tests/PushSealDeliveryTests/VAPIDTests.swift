import Foundation
import PushSealCore
import PushSealPrimitives
import PushSealTestSupport
import Testing

@testable import PushSealDelivery

/// RFC 8292 (VAPID): the key files, the token's claims and signature, and its reuse per origin.
@Suite("VAPID")
struct VAPIDTests {
    final class FakeClock: @unchecked Sendable {
        var now = 1_800_000_000
    }

    static func key(_ text: [UInt8]) throws -> VAPIDKey {
        var bytes = text
        return try VAPIDKey(wipingFileBytes: &bytes)
    }

    static func jwkKey() throws -> (VAPIDKey, PrivateKey) {
        let jwk = try PrivateKey.generate(suite: .p256)
        return (try key(JSONWriter.bytes(.object(jwk.privateJWK))), jwk)
    }

    static func parts(_ authorization: String) throws -> (token: [Substring], key: String) {
        let match = try Regex(#"^vapid t=([A-Za-z0-9_.\-]+), k=([A-Za-z0-9_\-]+)$"#).wholeMatch(in: authorization)
        let pattern = try #require(match)
        let token = try #require(pattern.output[1].substring)
        let key = try #require(pattern.output[2].substring)
        return (token.split(separator: "."), String(key))
    }

    static func claims(_ part: Substring) throws -> JSONObject {
        let bytes = try #require(Base64URL.decode(String(part)))
        return try #require(try JSONParser.parse(bytes).objectValue)
    }

    @Test("tokens for ever new origins are not kept past keptTokens; a fresh one for a kept origin is reused")
    func tokensBounded() throws {
        let (key, _) = try Self.jwkKey()
        let issuer = try VAPIDIssuer(key: key, subject: "mailto:ops@example.com")
        for index in 0..<(VAPIDIssuer.keptTokens + 50) {
            _ = try issuer.authorization(for: "https://push-\(index).example/s")
            #expect(issuer.keptTokenCount <= VAPIDIssuer.keptTokens)
        }
        let made = issuer.mintedCount
        _ = try issuer.authorization(for: "https://push-\(VAPIDIssuer.keptTokens + 49).example/other")
        #expect(issuer.mintedCount == made, "the newest origin's token is still kept and reused")
    }

    @Test("the authorization is vapid t=<ES256 JWT>, k=<the key's public point>; the JWT verifies under k")
    func authorization() throws {
        let (key, jwk) = try Self.jwkKey()
        #expect(key.publicKey == Base64URL.encode(try #require(jwk.publicKey?.rawRepresentation)))
        let clock = FakeClock()
        let issuer = try VAPIDIssuer(key: key, subject: "mailto:ops@example.com") { clock.now }
        let (token, k) = try Self.parts(try issuer.authorization(for: "https://fcm.googleapis.com/fcm/send/abc"))
        #expect(k == key.publicKey)
        #expect(try Self.claims(token[0]) == JSONObject([("typ", .string("JWT")), ("alg", .string("ES256"))]))
        #expect(
            try Self.claims(token[1])
                == JSONObject([
                    ("aud", .string("https://fcm.googleapis.com")),
                    ("exp", .number(JSONNumber(1_800_000_000 + 12 * 3600))),
                    ("sub", .string("mailto:ops@example.com")),
                ]))
        let verifier = try P256.VerifyingKey(x963Representation: try #require(Base64URL.decode(k)))
        let signature = try #require(Base64URL.decode(String(token[2])))
        #expect(verifier.isValidSignature(signature, for: Array("\(token[0]).\(token[1])".utf8)))
        #expect(!verifier.isValidSignature(signature, for: Array("\(token[0]).\(token[1])x".utf8)))
    }

    @Test("one token per origin, reused until an hour before it expires; a port is part of the origin")
    func reusePerOrigin() throws {
        let clock = FakeClock()
        let issuer = try VAPIDIssuer(key: try Self.jwkKey().0, subject: "https://example.com/contact") { clock.now }
        let first = try issuer.authorization(for: "https://updates.push.services.mozilla.com/wpush/v2/a")
        #expect(try issuer.authorization(for: "https://updates.push.services.mozilla.com/wpush/v2/b") == first)
        let other = try issuer.authorization(for: "https://push.example.net:8443/x")
        #expect(other != first)
        #expect(try Self.claims(try Self.parts(other).token[1])["aud"] == .string("https://push.example.net:8443"))
        #expect(issuer.mintedCount == 2)
        clock.now += 11 * 3600 - 1
        #expect(try issuer.authorization(for: "https://updates.push.services.mozilla.com/wpush/v2/a") == first)
        clock.now += 1
        #expect(try issuer.authorization(for: "https://updates.push.services.mozilla.com/wpush/v2/a") != first)
        #expect(issuer.mintedCount == 3)
    }

    @Test("a PKCS#8 PEM key signs as its JWK does, and the file bytes are zeroed after reading")
    func pemKey() throws {
        var pem = Array(
            """
            -----BEGIN PRIVATE KEY-----
            MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg77ULc8CVsLs66npa
            UUn0d0vfiUlEUWE33YTsnqCSvXahRANCAASWzPnmRU42/lvNQyqScM8SJrmNJUUb
            oqDiF20fBGhweFGaaU67d5+FvMDtpgiWmWgR5JalUYfEGTrdvBNAcEl6
            -----END PRIVATE KEY-----
            """.utf8)
        let expected = Base64URL.encode(try P256.SigningKey(pkcs8PEM: pem).publicKey)
        let key = try VAPIDKey(wipingFileBytes: &pem)
        #expect(pem.allSatisfy { $0 == 0 })
        #expect(key.publicKey == expected)
        #expect("\(key)" == "VAPIDKey(public: \(expected))")
    }

    @Test("keys that cannot sign ES256 are refused with a reason, and nothing shows key bytes")
    func refusedKeys() throws {
        let x25519 = try PrivateKey.generate(suite: .x25519)
        let p256 = try PrivateKey.generate(suite: .p256)
        let cases: [([UInt8], String)] = [
            (JSONWriter.bytes(.object(x25519.privateJWK)), "must be on P-256"),
            (JSONWriter.bytes(.object(try #require(p256.publicKey).jwk)), "not a usable JWK"),
            (Array("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8), "neither a P-256"),
            (Array("not a key".utf8), "neither a P-256"),
        ]
        for (bytes, message) in cases {
            var copy = bytes
            do {
                _ = try VAPIDKey(wipingFileBytes: &copy)
                Issue.record("accepted a key that should fail with \(message)")
            } catch {
                #expect("\(error)".contains(message), "\(error)")
                #expect(!"\(error)".contains(p256.privateJWK["d"]?.stringValue ?? "-"))
            }
            #expect(copy.allSatisfy { $0 == 0 })
        }
    }

    @Test(
        "the subject must be a mailto: address or an https: URL",
        arguments: [
            "", "ops@example.com", "mailto:", "http://example.com", "https://", "mailto:ops@example.com\r\nx: y",
        ])
    func refusedSubjects(subject: String) throws {
        #expect(throws: DeliveryError.self) { try VAPIDIssuer(key: try Self.jwkKey().0, subject: subject) }
    }

    @Test("an independent check (Python's cryptography) accepts the token as a push service would")
    func pushServiceCheck() throws {
        let issuer = try VAPIDIssuer(key: try Self.jwkKey().0, subject: "mailto:ops@example.com")
        let endpoints = ["https://fcm.googleapis.com/fcm/send/abc", "https://push.example.net:8443/p/1"]
        let lines = try endpoints.map { endpoint in
            JSONWriter.string(
                .object(
                    JSONObject([
                        ("authorization", .string(try issuer.authorization(for: endpoint))),
                        ("endpoint", .string(endpoint)),
                    ])))
        }
        let result = try PythonPeer.webPush(["vapid-check"], input: lines.joined(separator: "\n") + "\n")
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.lines.count == 2)
        for line in result.lines {
            let answer = try #require(try JSONParser.parse(Array(line.utf8)).objectValue)
            #expect(answer["error"] == nil, "\(line)")
            #expect(answer["claims"]?.objectValue?["sub"] == .string("mailto:ops@example.com"))
        }
    }
}
