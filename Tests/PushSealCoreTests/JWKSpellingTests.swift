import PushSealCore
import Testing

@Suite("Protocol strings are compared byte for byte")
struct JWKSpellingTests {
    /// The public JWK of a fresh X25519 key, as text, with its `kty` replaced by `keyType`.
    static func publicJWK(keyType: String) throws -> [UInt8] {
        let key = try #require(try PrivateKey.generate(suite: .x25519).publicKey)
        var object = key.jwk
        object["kty"] = .string(keyType)
        return JSONWriter.bytes(.object(object))
    }

    @Test("a kty spelled with U+212A KELVIN SIGN is not OKP")
    func kelvinKeyType() throws {
        #expect(throws: Never.self) { try PublicKey(jwk: try Self.publicJWK(keyType: "OKP")) }
        let kelvin = try Self.publicJWK(keyType: "O\u{212A}P")
        #expect(throws: PushSealError(.invalidKey, "")) { try PublicKey(jwk: kelvin) }
        #expect(throws: PushSealError(.invalidKey, "")) { try Recipient(jwk: kelvin) }
    }

    @Test("suite names match only their exact spelling")
    func suiteNames() {
        #expect(EnvelopeSuite(name: "X25519-SHA256-ChaCha20Poly1305") == .x25519)
        #expect(EnvelopeSuite(name: "x25519-sha256-chacha20poly1305") == nil)
        #expect(EnvelopeSuite(shortName: "xchacha") == .xChaCha)
        #expect(EnvelopeSuite(name: "P256-SHA256-AES256GCM\u{0301}") == nil)
    }

    @Test("ExactText matches in switch, in sets, and not across canonical equivalents")
    func exactText() {
        #expect("K" == "\u{212A}", "the Swift behaviour this type exists to avoid")
        #expect(!"K".isExactly("\u{212A}"))
        #expect(Set([ExactText("K"), ExactText("\u{212A}")]).count == 2)
        let matched: Bool =
            switch ExactText("\u{212A}") {
            case "K": true
            default: false
            }
        #expect(!matched)
    }
}
