package import Foundation

/// The package's root directory, and the third-party vectors kept in `Tests/Vectors` (RFC 9180
/// HPKE, Project Wycheproof).
///
/// The vectors travel with the repository, so every clone runs them all: a missing or edited
/// file is an error that fails its test (and `VectorFilesTests`), never a skip.
package enum TestVectors {
    /// The package's root directory, found from this file's path.
    package static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `Tests/Vectors`.
    package static let directory: URL = packageRoot.appendingPathComponent("Tests/Vectors")

    /// A vector file that is not there.
    package struct Missing: Error, CustomStringConvertible {
        /// The path looked for.
        package let path: String
        /// Names the file and what to do.
        package var description: String {
            "the vector file \(path) is missing: restore it from git (Tests/Vectors/README.md lists them)"
        }
    }

    /// Reads and decodes one vector file below ``directory``.
    /// - Throws: ``Missing`` when the file is absent, or the decoder's error.
    package static func load<T: Decodable>(_ type: T.Type, _ relativePath: String) throws -> T {
        let url = directory.appendingPathComponent(relativePath)
        guard FileManager.default.fileExists(atPath: url.path) else { throw Missing(path: url.path) }
        return try JSONDecoder().decode(T.self, from: Data(contentsOf: url))
    }
}
