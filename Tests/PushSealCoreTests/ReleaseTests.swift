import Foundation
import PushSealCore
import Testing

/// The package's one version (`PushSealRelease.version`) and CHANGELOG.md agree, so that a release
/// tag, the binaries' `--version` and the changelog never tell three stories.
@Suite("release version")
struct ReleaseTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("the version is Semantic Versioning's MAJOR.MINOR.PATCH, and CHANGELOG.md's first entry is it")
    func changelogNamesTheVersion() throws {
        let parts = PushSealRelease.version.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) })
        let changelog = try String(contentsOf: Self.root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let first = changelog.split(separator: "\n").first { $0.hasPrefix("## ") }
        #expect(
            first == "## \(PushSealRelease.version)" || first == "## \(PushSealRelease.version) (unreleased)"
                || first?.hasPrefix("## \(PushSealRelease.version) (20") == true,
            "CHANGELOG.md's first entry is \(first ?? "missing"), the package is \(PushSealRelease.version)")
    }
}
