import PushSealPrimitives
import PushSealTestSupport
import Testing

/// Project Wycheproof's HKDF-SHA256 and HMAC-SHA256 vectors.
@Suite("Wycheproof HKDF and HMAC")
struct WycheproofKDFTests {
    @Test("HKDF-SHA256")
    func hkdf() throws {
        let file = try TestVectors.load(
            WycheproofFile<HKDFTestCase, NoGroupParameters>.self, "wycheproof/hkdf_sha256_test.json")
        var executed = 0
        for test in file.testGroups.flatMap(\.tests) {
            executed += 1
            let derive = {
                try HKDF.deriveKey(
                    ikm: Hex.decode(test.ikm), salt: Hex.decode(test.salt), info: Hex.decode(test.info),
                    length: test.size)
            }
            switch test.result {
            case .valid, .acceptable:
                #expect(try derive() == SecretBytes(copying: Hex.decode(test.okm)), "tcId \(test.tcId)")
            case .invalid:
                #expect(throws: CryptoFailure.self, "tcId \(test.tcId)") { try derive() }
            }
        }
        print("Wycheproof hkdf_sha256_test.json: \(executed) cases run")
        #expect(executed == file.numberOfTests)
    }

    /// Groups with a 128-bit `tagSize` hold truncated tags: the first 16 bytes are compared.
    @Test("HMAC-SHA256")
    func hmac() throws {
        let file = try TestVectors.load(
            WycheproofFile<MACTestCase, MACGroupParameters>.self, "wycheproof/hmac_sha256_test.json")
        var executed = 0
        for group in file.testGroups {
            for test in group.tests {
                executed += 1
                let tag = try HMAC.authenticationCode(key: Hex.decode(test.key), message: Hex.decode(test.msg))
                let matches = ConstantTime.equals(Array(tag.prefix(group.parameters.tagSize / 8)), Hex.decode(test.tag))
                #expect(matches == (test.result != .invalid), "tcId \(test.tcId)")
            }
        }
        print("Wycheproof hmac_sha256_test.json: \(executed) cases run")
        #expect(executed == file.numberOfTests)
    }
}
