import PushSealPrimitives
import PushSealTestSupport
import Testing

/// Project Wycheproof's AEAD vectors against our libsodium and OpenSSL wrappers.
///
/// Policy: each cipher accepts exactly one nonce size (and AES-GCM the 128- and 256-bit keys);
/// every group of another size must be refused by the wrapper before the library is called,
/// whatever the file's verdict for that size.
@Suite("Wycheproof AEAD")
struct WycheproofAEADTests {
    typealias File = WycheproofFile<AEADTestCase, AEADGroupParameters>

    @Test("ChaCha20-Poly1305 (IETF)")
    func chaCha20Poly1305() throws {
        try run("chacha20_poly1305_test.json", ciphers: [.chaCha20Poly1305])
    }

    @Test("XChaCha20-Poly1305")
    func xChaCha20Poly1305() throws {
        try run("xchacha20_poly1305_test.json", ciphers: [.xChaCha20Poly1305])
    }

    @Test("AES-GCM: 256-bit keys with AES-256-GCM, 128-bit keys with AES-128-GCM, other sizes refused")
    func aesGCM() throws {
        try run("aes_gcm_test.json", ciphers: [.aes256GCM, .aes128GCM])
    }

    /// Runs every test of `fileName` through the first of `ciphers` whose key size fits the group
    /// (or the first cipher, to prove it refuses the sizes none of them takes).
    private func run(_ fileName: String, ciphers: [AEAD]) throws {
        let file = try TestVectors.load(File.self, TestVectors.wycheproof("Cipher", fileName))
        var executed = 0
        var refusedForSize = 0
        for group in file.testGroups {
            let cipher = ciphers.first { $0.keyByteCount * 8 == group.parameters.keySize } ?? ciphers[0]
            let sizesSupported =
                cipher.keyByteCount * 8 == group.parameters.keySize
                && cipher.nonceByteCount * 8 == group.parameters.ivSize
                && group.parameters.tagSize == 128
            for test in group.tests {
                executed += 1
                let key = SecretBytes(copying: Hex.decode(test.key))
                let nonce = Hex.decode(test.iv)
                let aad = Hex.decode(test.aad)
                let sealed = Hex.decode(test.ct) + Hex.decode(test.tag)
                if !sizesSupported {
                    refusedForSize += 1
                    #expect(throws: CryptoFailure.self, "tcId \(test.tcId): size must be refused") {
                        try cipher.open(key: key, nonce: nonce, aad: aad, ciphertext: sealed)
                    }
                    #expect(throws: CryptoFailure.self, "tcId \(test.tcId): size must be refused") {
                        try cipher.seal(key: key, nonce: nonce, aad: aad, plaintext: Hex.decode(test.msg))
                    }
                    continue
                }
                switch test.result {
                case .valid, .acceptable:
                    let opened = try cipher.open(key: key, nonce: nonce, aad: aad, ciphertext: sealed)
                    #expect(Hex.encode(opened) == test.msg, "tcId \(test.tcId)")
                    let resealed = try cipher.seal(key: key, nonce: nonce, aad: aad, plaintext: Hex.decode(test.msg))
                    #expect(resealed == sealed, "tcId \(test.tcId)")
                case .invalid:
                    #expect(throws: CryptoFailure.authenticationFailed, "tcId \(test.tcId)") {
                        try cipher.open(key: key, nonce: nonce, aad: aad, ciphertext: sealed)
                    }
                }
            }
        }
        print("Wycheproof \(fileName): \(executed) cases run, \(refusedForSize) of them refused for their size")
        #expect(executed == file.numberOfTests)
    }
}
