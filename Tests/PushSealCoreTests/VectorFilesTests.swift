import Foundation
import PushSealPrimitives
import PushSealTestSupport
import Testing

/// The third-party vectors travel with the repository: every file listed in
/// `Tests/Vectors/checksums.sha256` must be there, unedited.
@Suite("Third-party vector files")
struct VectorFilesTests {
    /// `(sha256 hex, relative path)` for each line of the checksum file.
    static func listed() throws -> [(digest: String, path: String)] {
        let text = try String(
            contentsOf: TestVectors.directory.appendingPathComponent("checksums.sha256"), encoding: .utf8)
        return text.split(separator: "\n").map { line in
            let parts = line.split(separator: " ", maxSplits: 1)
            return (String(parts[0]), parts[1].trimmingCharacters(in: .whitespaces))
        }
    }

    @Test("all eight files are present and match their recorded SHA-256")
    func present() throws {
        let files = try Self.listed()
        #expect(files.count == 8)
        for file in files {
            let url = TestVectors.directory.appendingPathComponent(file.path)
            guard let data = FileManager.default.contents(atPath: url.path) else {
                Issue.record("the vector file \(url.path) is missing: restore it from git")
                continue
            }
            let digest = SHA256.hash(Array(data)).map { String(format: "%02x", $0) }.joined()
            #expect(digest == file.digest, "\(file.path) was edited")
        }
        #expect(
            FileManager.default.fileExists(
                atPath: TestVectors.directory.appendingPathComponent("wycheproof/LICENSE").path))
    }
}
