import Foundation
import PushSealPrimitives
import PushSealTestSupport
import Testing

/// The third-party vectors come from PyPI (`make vectors`): every file listed in
/// `Tests/Vectors/checksums.sha256` must be in `.build/vectors`, unedited.
@Suite("Third-party vector files")
struct VectorFilesTests {
    /// `(sha256 hex, relative path)` for each line of the checksum file.
    static func listed() throws -> [(digest: String, path: String)] {
        let text = try String(contentsOf: TestVectors.checksums, encoding: .utf8)
        return text.split(separator: "\n").map { line in
            let parts = line.split(separator: " ", maxSplits: 1)
            return (String(parts[0]), parts[1].trimmingCharacters(in: .whitespaces))
        }
    }

    @Test("all ten files are present and match their recorded SHA-256")
    func present() throws {
        let files = try Self.listed()
        #expect(files.count == 10)
        for file in files {
            let data = try TestVectors.data(file.path)
            let digest = Hex.encode(SHA256.hash(Array(data)))
            #expect(digest == file.digest, "\(file.path) differs from the pinned file")
        }
    }

    /// Wycheproof's `HPKE-test-vectors.json` is RFC 9180's file byte for byte (pycryptodome ships
    /// the same file under Wycheproof's name), so ``HPKEVectorTests`` running the RFC file runs
    /// both. Should a new version of the package ship a different file, this fails and says so.
    @Test("Wycheproof's HPKE file is RFC 9180's file, byte for byte")
    func wycheproofHPKEIsTheRFCFile() throws {
        let wycheproof = try TestVectors.data(TestVectors.wycheproof("Protocol", "HPKE-test-vectors.json"))
        let rfc = try TestVectors.data(TestVectors.rfc9180)
        #expect(wycheproof == rfc, "the Wycheproof HPKE file now differs: run its entries in HPKEVectorTests")
    }
}
