import Foundation
import PushSealCore
import PushSealTestSupport
import Testing

@testable import PushSealDecryptor

/// Replays every file of `FuzzRegressions/` through the decrypt path with the fuzz target's checks.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    static let directory = TestVectors.packageRoot.appendingPathComponent(
        "Tests/PushSealDecryptorTests/FuzzRegressions")
    static let inputs: [String] =
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0 != "README.md" }
        .sorted()

    @Test("the regression directory is not empty")
    func present() {
        #expect(Self.inputs.count >= 8)
    }

    @Test("each recorded input is handled without a crash, and as the fuzz target demands", arguments: inputs)
    func replay(_ name: String) throws {
        let bytes = Array(try Data(contentsOf: Self.directory.appendingPathComponent(name)))
        let device = try Device()
        guard let payload = try? JSONParser.parse(bytes).objectValue else { return }
        let result = device.decryptor.open(payload)
        #expect(result.status != .decrypted)
        #expect(result.notification == NotificationContent(payload: payload))
        #expect((result.status == .degraded) == (result.reason != nil))
        _ = JSONWriter.bytes(.object(result.json))
    }

    @Test("nesting past the depth limit is refused, not followed down the stack")
    func depthLimit() {
        let deep =
            Array(repeating: UInt8(ascii: "["), count: 100_000) + Array(repeating: UInt8(ascii: "]"), count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(deep) }
    }
}
