import PushSealPrimitives
import PushSealTestSupport
import Testing

/// Project Wycheproof's ECDSA P-256 / SHA-256 vectors in the IEEE P1363 form (`r || s`) that JWS
/// ES256 uses, through the same OpenSSL (or CryptoKit) path as the provider-token signer.
@Suite("Wycheproof ECDSA P-256 (P1363)")
struct WycheproofECDSATests {
    struct Test: Decodable, Sendable {
        let tcId: Int
        let msg: String
        let sig: String
        let result: WycheproofResult
    }

    struct Group: Decodable, Sendable {
        struct Key: Decodable, Sendable { let uncompressed: String }
        let publicKey: Key
    }

    typealias File = WycheproofFile<Test, Group>

    /// Policy: `valid` must verify; `invalid` must not. The file has no `acceptable` case.
    @Test("every case gets its expected verdict")
    func verdicts() throws {
        let file = try TestVectors.load(
            File.self, TestVectors.wycheproof("Signature", "ecdsa_secp256r1_sha256_p1363_test.json"))
        var executed = 0
        var valid = 0
        for group in file.testGroups {
            let key = try P256.VerifyingKey(x963Representation: Hex.decode(group.parameters.publicKey.uncompressed))
            for test in group.tests {
                executed += 1
                let verified = key.isValidSignature(Hex.decode(test.sig), for: Hex.decode(test.msg))
                #expect(test.result != .acceptable, "tcId \(test.tcId): no policy for acceptable cases")
                #expect(verified == (test.result == .valid), "tcId \(test.tcId)")
                if verified { valid += 1 }
            }
        }
        print("Wycheproof ecdsa_secp256r1_sha256_p1363_test.json: \(executed) cases run, \(valid) verified")
        #expect(executed == file.numberOfTests)
    }
}
