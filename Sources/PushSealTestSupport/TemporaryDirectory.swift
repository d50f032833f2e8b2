import Foundation

/// A fresh directory under the system's temporary directory, removed when released.
package final class TemporaryDirectory: @unchecked Sendable {
    /// The directory's path.
    package let path: String

    package init() {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("pushseal-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        path = base.path
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// A path inside the directory.
    package func file(_ name: String) -> String { "\(path)/\(name)" }

    /// Writes `text` to `name` (making its directories) and returns its path.
    @discardableResult
    package func write(_ name: String, _ text: String) throws -> String {
        try FileManager.default.createDirectory(
            atPath: (file(name) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: file(name), atomically: true, encoding: .utf8)
        return file(name)
    }
}
