import Foundation
import PushSealCore
import PushSealDelivery
import Testing

@testable import PushSealGateway

/// The relay's VAPID check (RFC 8292) reads `Authorization` as RFC 7235 §2.1 writes auth-params:
/// names without case, values as tokens or quoted strings, white space around the `=`.
@Suite("VAPID authorization parameters")
struct VAPIDCheckTests {
    static let endpoint = "https://relay.example/v1/webpush/abc"

    /// A key, its public key as base64url, and a valid `vapid t=…, k=…` for ``endpoint``.
    static func signed() throws -> (publicKey: String, authorization: String) {
        var keyFile = JSONWriter.bytes(.object(try PrivateKey.generate(suite: .p256).privateJWK))
        let key = try VAPIDKey(wipingFileBytes: &keyFile)
        let issuer = try VAPIDIssuer(key: key, subject: "mailto:ops@example.com")
        return (key.publicKey, try issuer.authorization(for: endpoint))
    }

    @Test("parameters: case-insensitive names, quoted values unescaped, spaces around = and commas")
    func parameters() {
        let parsed = HeaderParameters.authParameters(#"T="a.b.c" ,  K = "x\"y",extra=1"#.utf8[...])
        #expect(parsed == ["t": "a.b.c", "k": #"x"y"#, "extra": "1"])
        for malformed in [#"t="unterminated"#, "t", "=v", "t=a k=b", "t=a, t=b", #"t="a"b"#] {
            #expect(HeaderParameters.authParameters(malformed.utf8[...]) == nil, "\(malformed)")
        }
        #expect(HeaderParameters.authParameters("".utf8[...]) == [:])
    }

    @Test("legacy headers' parameters: entries by commas, parameters by semicolons, quoted or not")
    func legacyParameters() {
        let parsed = HeaderParameters.entries(#"dh="BAAA" ; p256ecdsa=BCCC, keyid=k2;DH=x"#)
        #expect(parsed == [["dh": "BAAA", "p256ecdsa": "BCCC"], ["keyid": "k2", "dh": "x"]])
        #expect(HeaderParameters.entries("salt=abc") == [["salt": "abc"]])
        #expect(HeaderParameters.entries(" ,; salt=abc ;, ") == [["salt": "abc"]])
        for malformed in ["salt", "salt=a rs=2", "salt=a;salt=b", #"salt="open"#, "=x"] {
            #expect(HeaderParameters.entries(malformed) == nil, "\(malformed)")
        }
    }

    @Test("draft-ietf-webpush-vapid-01's form: Authorization: WebPush <JWT>, the key in Crypto-Key's p256ecdsa")
    func draftForm() throws {
        let (publicKey, authorization) = try Self.signed()
        let parameters = try #require(HeaderParameters.authParameters(authorization.utf8.dropFirst(6)))
        let (token, key) = (try #require(parameters["t"]), try #require(parameters["k"]))
        let now = Int64(Date().timeIntervalSince1970)
        func check(_ authorization: String, _ cryptoKey: String?) throws {
            try VAPIDCheck.check(
                authorization, cryptoKey: cryptoKey, pinned: publicKey, audience: "https://relay.example", now: now)
        }
        // Mastodon's order, pywebpush's, and the draft's comma between entries.
        for cryptoKey in ["dh=BAAA;p256ecdsa=\(key)", "p256ecdsa=\(key);dh=BAAA", "dh=BAAA, p256ecdsa=\(key)"] {
            #expect(throws: Never.self, "\(cryptoKey.prefix(20))") { try check("WebPush \(token)", cryptoKey) }
        }
        #expect(throws: Never.self) { try check("webpush  \(token) ", "p256ecdsa=\(key)") }
        let missing = #expect(throws: APIError.self) { try check("WebPush \(token)", "dh=BAAA") }
        #expect(missing?.status == 401 && missing?.message.contains("p256ecdsa") == true)
        #expect(throws: APIError.self) { try check("WebPush \(token)", nil) }
        #expect(throws: APIError.self) { try check("WebPush \(token)", "p256ecdsa=\(key),p256ecdsa=\(key)") }
        let (otherKey, _) = try Self.signed()
        let other = #expect(throws: APIError.self) { try check("WebPush \(token)", "p256ecdsa=\(otherKey)") }
        #expect(other?.status == 403, "a valid token of another key")
        #expect(throws: APIError.self) { try check("WebPush \(token.dropLast(4))AAAA", "p256ecdsa=\(key)") }
        #expect(throws: APIError.self) { try check("Bearer \(token)", "p256ecdsa=\(key)") }
    }

    @Test("a valid token passes in every spelling RFC 7235 allows, and fails once its key or signature is off")
    func spellings() throws {
        let (publicKey, authorization) = try Self.signed()
        let parameters = try #require(HeaderParameters.authParameters(authorization.utf8.dropFirst(6)))
        let (token, key) = (try #require(parameters["t"]), try #require(parameters["k"]))
        let now = Int64(Date().timeIntervalSince1970)
        for spelling in [
            authorization, #"vapid t="\#(token)", k="\#(key)""#, "VAPID T=\(token), K=\(key)",
            "vapid k = \(key) , t = \(token)",
        ] {
            #expect(throws: Never.self, "\(spelling.prefix(40))") {
                try VAPIDCheck.check(spelling, pinned: publicKey, audience: "https://relay.example", now: now)
            }
        }
        let (otherKey, _) = try Self.signed()
        #expect(throws: APIError.self) {
            try VAPIDCheck.check(authorization, pinned: otherKey, audience: "https://relay.example", now: now)
        }
        #expect(throws: APIError.self) {
            try VAPIDCheck.check(
                "vapid t=\(token.dropLast(4))AAAA, k=\(key)", pinned: publicKey, audience: "https://relay.example",
                now: now)
        }
    }

    @Test("exp in the past or more than 24 h ahead is refused")
    func expiry() throws {
        let (publicKey, authorization) = try Self.signed()
        let now = Int64(Date().timeIntervalSince1970)
        // The issuer's tokens expire some 12 h ahead: a day later it has passed, and a day before
        // it lies more than 24 h ahead.
        for shifted in [now + 86_400, now - 86_400] {
            #expect(throws: APIError.self, "now \(shifted - now)") {
                try VAPIDCheck.check(authorization, pinned: publicKey, audience: "https://relay.example", now: shifted)
            }
        }
    }
}
