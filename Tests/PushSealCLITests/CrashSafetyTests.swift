import Foundation
import PushSealCore
import PushSealTestSupport
import Testing

@testable import PushSealDecryptor

/// The key store under process crashes and concurrent writers.
@Suite("Key store crash safety", .serialized)
struct CrashSafetyTests {
    /// The kids of the JWK lines a rotating process reported.
    static func reportedKids(_ output: Data) -> [String] {
        String(decoding: output, as: UTF8.self).split(separator: "\n").compactMap { line in
            (try? JSONParser.parse(String(line)))?.objectValue?["kid"]?.stringValue
        }
    }

    @Test("SIGKILL a rotating process 200 times while another keeps loading and decrypting")
    func killedWhileRotating() throws {
        let world = try CLIWorld(pinSender: false)
        let store = FileKeyStore(directory: world.directory.file("store"))
        let baseMode = try world.run(["encrypt", "--to", "device.jwk"], input: order).output
        let sealed = try #require(try JSONParser.parse(baseMode).objectValue)
        let decryptor = Decryptor(keyStore: store, lateKeyDelay: .zero)

        struct ReaderTally { var loads = 0, decrypted = 0, failures: [String] = [] }
        let tally = Protected(ReaderTally())
        let stop = Protected(false)
        let reader = Thread {
            while !stop.withLock({ $0 }) {
                do {
                    _ = try store.loadKeyRing()
                    let result = decryptor.open(sealed)
                    tally.withLock { tally in
                        tally.loads += 1
                        if result.status == .decrypted {
                            tally.decrypted += 1
                        } else {
                            tally.failures.append(result.reason?.rawValue ?? "?")
                        }
                    }
                } catch {
                    tally.withLock { $0.failures.append("\(error)") }
                }
            }
        }
        reader.start()

        var reported: [String] = []
        var generator = SystemRandomNumberGenerator()
        for iteration in 0..<200 {
            let process = Process()
            process.executableURL = CLIRunner.executable
            process.arguments = ["keys", "rotate", "--store", store.directory, "--repeat", "1000"]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Every fourth run waits for a first finished rotation, so that the test exercises
            // rotations however slow the machine (or a sanitizer) makes them.
            let early = iteration % 4 == 0 ? output.fileHandleForReading.availableData : Data()
            usleep(UInt32.random(in: 2_000...30_000, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            let data = early + output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            reported += Self.reportedKids(data)
        }
        stop.withLock { $0 = true }
        while !reader.isFinished { usleep(1_000) }

        let stored = Set(try store.entries().map(\.kid))
        let lost = reported.filter { !stored.contains($0) }
        let final = tally.withLock { $0 }
        print(
            "crash safety: 200 kills, \(reported.count) rotations reported, \(stored.count) keys stored, "
                + "\(final.loads) loads and decryptions by the other process")
        #expect(reported.count > 50, "the rotator made progress between kills")
        #expect(lost.isEmpty, "\(lost.count) reported keys were lost")
        #expect(final.failures.isEmpty, "\(final.failures.prefix(5))")
        #expect(final.loads > 100 && final.decrypted == final.loads)
        #expect(try store.entries().filter(\.current).count == 1)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: store.directory).filter {
            $0.hasSuffix(".tmp")
        }
        #expect(leftovers.count <= 1, "abandoned temporary files are cleared by the next writer")
    }

    @Test("two processes rotating at once: every key either reported is present afterwards")
    func concurrentRotators() async throws {
        let world = try CLIWorld(pinSender: false)
        async let first = world.run(["keys", "rotate", "--store", "store", "--repeat", "60"])
        async let second = world.run(["keys", "rotate", "--store", "store", "--repeat", "60"])
        let results = try await [first, second]
        #expect(results.allSatisfy { $0.status == 0 })
        let reported = results.flatMap { Self.reportedKids(Data($0.output.utf8)) }
        #expect(reported.count == 120)
        let stored = Set(try FileKeyStore(directory: world.directory.file("store")).entries().map(\.kid))
        #expect(Set(reported).isSubset(of: stored))
        #expect(stored.count == 121)
    }
}
