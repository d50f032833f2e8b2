import Foundation
import PushSealTestSupport
import Testing

/// The gateway's model is values and rules only: what it computes follows from its inputs, so that
/// every layer above can reason about it, and its tests need no clock, no database and no luck.
@Suite("pushseal-gateway model purity")
struct ModelPurityTests {
    /// The modules the model may import: the formats and primitives, none of which it uses to read
    /// a file, the network or the clock.
    static let allowedImports: Set<String> = ["PushSealCore", "PushSealEncryptor", "PushSealPrimitives"]
    /// What would make the model depend on the world: the clock, randomness, the operating system.
    static let forbidden = [
        "clock_gettime", "gmtime", "Date()", ".random(", "SecureRandom", "RandomUUID", "ContinuousClock",
        "DispatchTime", "FileManager",
    ]

    @Test("the model imports no system module and reads neither the clock nor a source of randomness")
    func noOutsideWorld() throws {
        let directory = TestVectors.packageRoot.appendingPathComponent("Sources/PushSealGatewayModel")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasSuffix(".swift")
        }
        #expect(files.count > 30, "the model's sources were found: \(files.count)")
        for file in files {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                if let imported = line.firstMatch(of: /^\s*(?:(?:public|package|internal)\s+)?import\s+(\w+)/) {
                    #expect(Self.allowedImports.contains(String(imported.output.1)), "\(file): \(line)")
                }
                for word in Self.forbidden where line.contains(word) {
                    Issue.record("\(file) reaches outside the model: \(line)")
                }
            }
        }
    }
}
