import Foundation
import PushSealPrimitives
import PushSealTestSupport
import Testing

/// RFC 4231's HMAC-SHA256 test cases, as `cryptography-vectors` ships them (`Len`, `Key`, `Msg`,
/// `MD` blocks; the RFC's truncated-output case 5 is not in the file).
///
/// They replace Wycheproof's `hmac_sha256_test.json`, which neither pinned PyPI package ships.
@Suite("RFC 4231 HMAC-SHA256")
struct RFC4231HMACTests {
    struct Case {
        var key: [UInt8] = []
        var message: [UInt8] = []
        var tag: [UInt8] = []
    }

    /// The cases of the file, each closed by its `MD` line.
    static func cases() throws -> [Case] {
        let text = String(decoding: try TestVectors.data(TestVectors.rfc4231HMACSHA256), as: UTF8.self)
        var cases: [Case] = []
        var current = Case()
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { continue }
            switch parts[0] {
            case "Key": current.key = Hex.decode(parts[1])
            case "Msg": current.message = Hex.decode(parts[1])
            case "MD":
                current.tag = Hex.decode(parts[1])
                cases.append(current)
                current = Case()
            default: continue
            }
        }
        return cases
    }

    @Test("every tag matches, and a tag with one bit flipped does not")
    func tags() throws {
        let cases = try Self.cases()
        for (index, test) in cases.enumerated() {
            let tag = try HMAC.authenticationCode(key: test.key, message: test.message)
            #expect(tag == test.tag, "case \(index + 1)")
            var forged = test.tag
            forged[forged.count - 1] ^= 0x01
            #expect(!ConstantTime.equals(tag, forged), "case \(index + 1)")
        }
        print("RFC 4231 rfc-4231-sha256.txt: \(cases.count) cases run")
        #expect(cases.count == 6)
    }
}
