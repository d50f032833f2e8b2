package import Foundation

/// The third-party vectors in `../shared/vectors` (RFC 9180 HPKE, Project Wycheproof).
///
/// They are read in place, never copied into the repository. CI always has `../shared` beside the
/// clone; elsewhere the tests that need it are skipped and say so loudly. `PUSHSEAL_SHARED_DIR`
/// points somewhere else.
package enum SharedVectors {
    /// The package's root directory, found from this file's path.
    package static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `shared/vectors`, whether or not it exists.
    package static let directory: URL = {
        if let override = ProcessInfo.processInfo.environment["PUSHSEAL_SHARED_DIR"] {
            return URL(fileURLWithPath: override).appendingPathComponent("vectors")
        }
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/vectors")
    }()

    /// True when the vectors are there; when they are not, a warning is printed once.
    package static let available: Bool = {
        let present = FileManager.default.fileExists(atPath: directory.appendingPathComponent("README.md").path)
        if !present {
            print(
                """
                ************************************************************************
                WARNING: \(directory.path) is absent: the RFC 9180 and Wycheproof vector
                tests are SKIPPED. Put the shared/ folder beside the checkout (CI has it)
                or set PUSHSEAL_SHARED_DIR.
                ************************************************************************
                """)
        }
        return present
    }()

    /// Reads and decodes one vector file below ``directory``.
    package static func load<T: Decodable>(_ type: T.Type, _ relativePath: String) throws -> T {
        let data = try Data(contentsOf: directory.appendingPathComponent(relativePath))
        return try JSONDecoder().decode(T.self, from: data)
    }
}
