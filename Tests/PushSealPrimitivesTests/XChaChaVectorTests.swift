import PushSealTestSupport
import Testing

@testable import PushSealPrimitives

/// draft-irtf-cfrg-xchacha's own vectors, on whichever backend this build uses: libsodium's
/// XChaCha20-Poly1305, or CryptoKit's ChaCha20-Poly1305 under PushSeal's HChaCha20 subkey.
@Suite("XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha)")
struct XChaChaVectorTests {
    @Test("§A.3.1: the AEAD vector seals to the published ciphertext and tag, and opens back")
    func aeadVector() throws {
        let plaintext = Array(
            "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it."
                .utf8)
        let key = SecretBytes(copying: Array(0x80...0x9F as ClosedRange<UInt8>))
        let nonce = Array(0x40...0x57 as ClosedRange<UInt8>)
        let aad = Hex.decode("50515253c0c1c2c3c4c5c6c7")
        let expected = Hex.decode(
            "bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b4522f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff921f9664c97637da9768812f615c68b13b52e"
                + "c0875924c1c7987947deafd8780acf49")
        let sealed = try AEAD.xChaCha20Poly1305.seal(key: key, nonce: nonce, aad: aad, plaintext: plaintext)
        #expect(Hex.encode(sealed) == Hex.encode(expected))
        #expect(try AEAD.xChaCha20Poly1305.open(key: key, nonce: nonce, aad: aad, ciphertext: expected) == plaintext)
        var tampered = expected
        tampered[0] ^= 1
        #expect(throws: CryptoFailure.authenticationFailed) {
            try AEAD.xChaCha20Poly1305.open(key: key, nonce: nonce, aad: aad, ciphertext: tampered)
        }
    }

    #if PUSHSEAL_CRYPTOKIT
        @Test("§2.2.1: HChaCha20 gives the published subkey")
        func hChaCha20Vector() throws {
            let key = SecretBytes(copying: Array(0...31 as ClosedRange<UInt8>))
            let nonce = Hex.decode("000000090000004a0000000031415927")
            let subkey = nonce.withUnsafeBytes { HChaCha20.subkey(key: key, nonce: $0) }
            #expect(
                subkey
                    == SecretBytes(
                        copying: Hex.decode("82413b4227b27bfed30e42508a877d73a0f9e4d58a74a853c12ec41326d3ecdc")))
        }
    #endif
}
