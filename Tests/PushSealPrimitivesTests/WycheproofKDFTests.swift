import PushSealPrimitives
import PushSealTestSupport
import Testing

/// Project Wycheproof's HKDF-SHA256 vectors.
@Suite("Wycheproof HKDF")
struct WycheproofKDFTests {
    @Test("HKDF-SHA256")
    func hkdf() throws {
        let file = try TestVectors.load(
            WycheproofFile<HKDFTestCase, NoGroupParameters>.self,
            TestVectors.wycheproof("Protocol", "hkdf_sha256_test.json"))
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
}
