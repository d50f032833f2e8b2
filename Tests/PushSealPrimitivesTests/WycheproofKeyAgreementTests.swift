import PushSealPrimitives
import PushSealTestSupport
import Testing

/// Project Wycheproof's X25519 and P-256 ECDH vectors.
@Suite("Wycheproof key agreement")
struct WycheproofKeyAgreementTests {
    typealias File = WycheproofFile<KeyAgreementTestCase, NoGroupParameters>

    /// Policy: every case flagged `ZeroSharedSecret` must fail (RFC 9180 §7.1.4); every other
    /// case, valid or acceptable (twist, non-canonical points), must give the expected secret.
    @Test("X25519")
    func x25519() throws {
        let file = try TestVectors.load(File.self, TestVectors.wycheproof("Protocol", "x25519_test.json"))
        var executed = 0
        var refused = 0
        for test in file.testGroups.flatMap(\.tests) {
            executed += 1
            let key = try X25519.PrivateKey(rawRepresentation: SecretBytes(copying: Hex.decode(test.private)))
            let peer = try X25519.PublicKey(rawRepresentation: Hex.decode(test.public))
            #expect(peer.hasSmallOrder == test.flags.contains("ZeroSharedSecret"), "tcId \(test.tcId): small order")
            if test.flags.contains("ZeroSharedSecret") {
                refused += 1
                #expect(throws: CryptoFailure.authenticationFailed, "tcId \(test.tcId)") {
                    try key.sharedSecret(with: peer)
                }
            } else {
                let shared = try key.sharedSecret(with: peer)
                #expect(shared == SecretBytes(copying: Hex.decode(test.shared)), "tcId \(test.tcId)")
            }
        }
        print("Wycheproof x25519_test.json: \(executed) cases run, \(refused) all-zero secrets refused")
        #expect(executed == file.numberOfTests)
        #expect(refused == 31)
    }

    /// Policy: public keys are 65-byte uncompressed points, so the one `acceptable` compressed
    /// point is refused along with every `invalid` case; every `valid` case must match.
    @Test("P-256 ECDH over raw points")
    func p256() throws {
        let file = try TestVectors.load(
            File.self, TestVectors.wycheproof("Protocol", "ecdh_secp256r1_ecpoint_test.json"))
        var executed = 0
        var refused = 0
        for test in file.testGroups.flatMap(\.tests) {
            executed += 1
            let key = try P256.PrivateKey(rawRepresentation: SecretBytes(copying: Self.scalar(test.private)))
            let agree = { try key.sharedSecret(with: P256.PublicKey(x963Representation: Hex.decode(test.public))) }
            switch test.result {
            case .valid:
                #expect(try agree() == SecretBytes(copying: Hex.decode(test.shared)), "tcId \(test.tcId)")
            case .invalid, .acceptable:
                refused += 1
                #expect(throws: CryptoFailure.self, "tcId \(test.tcId)") { try agree() }
            }
        }
        print("Wycheproof ecdh_secp256r1_ecpoint_test.json: \(executed) cases run, \(refused) points refused")
        #expect(executed == file.numberOfTests)
    }

    /// Wycheproof writes the scalar as a signed big-endian integer: strip a sign byte, pad to 32.
    private static func scalar(_ hex: String) -> [UInt8] {
        var bytes = Array(Hex.decode(hex).drop { $0 == 0 })
        while bytes.count < P256.scalarByteCount { bytes.insert(0, at: 0) }
        return bytes
    }
}
