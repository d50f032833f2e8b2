import PushSealPrimitives
import Testing

/// The table-driven codec (public data) and libsodium's constant-time codec (key material)
/// must agree byte for byte and refuse the same inputs.
@Suite("base64url")
struct Base64URLTests {
    @Test("both codecs agree on every length from 0 to 300")
    func agree() {
        for length in 0...300 {
            let bytes = SecureRandom.bytes(length)
            let fast = Base64URL.encode(bytes)
            let constantTime = Base64URL.encodeSecret(SecretBytes(copying: bytes))
            #expect(fast == constantTime, "length \(length)")
            #expect(Base64URL.decode(fast) == bytes)
            #expect(Base64URL.decodeSecret(fast) == SecretBytes(copying: bytes))
        }
    }

    @Test("RFC 4648 examples, without padding")
    func knownAnswers() {
        let cases = [
            "": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy",
        ]
        for (plain, encoded) in cases {
            #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        }
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
    }

    static let refused = [
        "Zg==", "Zm8=", "Z", "Zh", "Zm9", "Zm9v+", "Zm/v", "Zm9v\n", " Zm9v", "Zm9vY", "Zm9vYh", "Zm9vYmF", "€",
    ]

    @Test("padding, foreign characters, impossible lengths and non-zero trailing bits are refused", arguments: refused)
    func strict(_ text: String) {
        #expect(Base64URL.decode(text) == nil)
        #expect(Base64URL.decodeSecret(text) == nil)
    }
}
