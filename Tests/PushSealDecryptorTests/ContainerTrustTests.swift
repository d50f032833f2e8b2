import Foundation
import PushSealCore
import PushSealTestSupport
import Testing

@testable import PushSealDecryptor

/// The app-group container is shared with the app: everything in it is untrusted. Each test puts
/// something hostile where the store expects its files and checks for a prompt, named refusal.
@Suite("Container trust rules")
struct ContainerTrustTests {
    /// Runs `body` on another thread and waits at most `seconds`; nil when it did not finish (a
    /// hang), so that a regression fails the test instead of hanging the run.
    static func finishing<Result: Sendable>(within seconds: Double, _ body: @escaping @Sendable () -> Result)
        -> Result?
    {
        let box = Protected<Result?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            let result = body()
            box.withLock { $0 = result }
            done.signal()
        }.start()
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        return box.withLock { $0 }
    }

    /// The message of the store error `body` throws, or nil when it throws none.
    static func refusal(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as PushSealError {
            return error.code == .keyStoreUnavailable ? error.detail : "wrong code \(error.code): \(error.detail)"
        } catch {
            return "not a PushSealError: \(error)"
        }
    }

    @Test("a FIFO as keys.json is refused at once, and decrypt degrades with key-store-unavailable")
    func fifoKeyFile() throws {
        let device = try Device()
        let payload = try device.seal(samplePayload)
        try FileManager.default.removeItem(atPath: device.store.keysPath)
        #expect(mkfifo(device.store.keysPath, 0o600) == 0)
        let store = device.store
        let message = Self.finishing(within: 5) { Self.refusal { _ = try store.entries() } }
        #expect(message??.contains("is a FIFO, not a regular file") == true, "\(String(describing: message))")
        let decryptor = device.decryptor
        let result = Self.finishing(within: 5) { decryptor.open(payload) }
        #expect(result?.status == .degraded)
        #expect(result?.reason == .keyStoreUnavailable)
    }

    @Test("a key file over 1 MiB is refused without being read")
    func oversizedKeyFile() throws {
        let device = try Device()
        let handle = try #require(FileHandle(forWritingAtPath: device.store.keysPath))
        try handle.truncate(atOffset: UInt64(FileKeyStore.maximumKeyFileSize + 1))
        try handle.close()
        let message = Self.refusal { _ = try device.store.entries() }
        #expect(message?.contains("over the 1048576-byte limit") == true, "\(String(describing: message))")
    }

    @Test("a symbolic link as keys.json, or as the store directory, is never followed")
    func symbolicLinks() throws {
        let device = try Device()
        let real = device.directory.file("elsewhere.json")
        try FileManager.default.moveItem(atPath: device.store.keysPath, toPath: real)
        try FileManager.default.createSymbolicLink(atPath: device.store.keysPath, withDestinationPath: real)
        let linkedFile = Self.refusal { _ = try device.store.entries() }
        #expect(linkedFile?.contains("keys.json is a symbolic link") == true, "\(String(describing: linkedFile))")

        let other = try Device()
        let linkedStore = other.directory.file("linked-store")
        try FileManager.default.createSymbolicLink(atPath: linkedStore, withDestinationPath: other.store.directory)
        let message = Self.refusal { _ = try FileKeyStore(directory: linkedStore).entries() }
        #expect(message?.contains("linked-store is a symbolic link") == true, "\(String(describing: message))")
        #expect(throws: PushSealError.self) { try FileKeyStore(directory: linkedStore).rotate() }
    }

    @Test("a key file owned by another user is refused", .enabled(if: geteuid() == 0, "needs root to chown"))
    func foreignOwner() throws {
        let device = try Device()
        #expect(chown(device.store.keysPath, 65_534, 65_534) == 0)
        let message = Self.refusal { _ = try device.store.entries() }
        #expect(message?.contains("is owned by uid 65534") == true, "\(String(describing: message))")
    }

    @Test("a FIFO as .lock cannot hang a writer; a FIFO or link as the ledger cannot block delivery")
    func fifoLockAndLedger() throws {
        let device = try Device()
        let lock = "\(device.store.directory)/.lock"
        try? FileManager.default.removeItem(atPath: lock)
        #expect(mkfifo(lock, 0o600) == 0)
        let store = device.store
        let message = Self.finishing(within: 5) { Self.refusal { _ = try store.rotate() } }
        #expect(message??.contains(".lock is a FIFO") == true, "\(String(describing: message))")

        #expect(mkfifo(device.store.ledger.path, 0o600) == 0)
        let ledger = device.store.ledger
        let ledgerError = Self.finishing(within: 5) { () -> String? in
            do {
                try ledger.check()
                return nil
            } catch {
                return "\(error)"
            }
        }
        #expect(ledgerError??.contains("is a FIFO") == true, "\(String(describing: ledgerError))")
        try FileManager.default.removeItem(atPath: lock)
        let payload = try device.seal(samplePayload)
        let decryptor = device.decryptor
        let result = Self.finishing(within: 5) { decryptor.open(payload) }
        #expect(result?.status == .decrypted, "an unusable ledger never blocks delivery")

        try FileManager.default.removeItem(atPath: ledger.path)
        try FileManager.default.createSymbolicLink(
            atPath: ledger.path, withDestinationPath: device.directory.file("target.sqlite"))
        #expect(throws: (any Error).self) { try ledger.check() }
        #expect(!FileManager.default.fileExists(atPath: device.directory.file("target.sqlite")), "link not followed")
    }

    @Test("a hard-linked keys.json, ledger or ledger journal is refused like a symbolic link; the other file stays")
    func hardLinks() throws {
        let device = try Device()
        let keysVictim = device.directory.file("keys-victim.json")
        #expect(link(device.store.keysPath, keysVictim) == 0)
        let message = Self.refusal { _ = try device.store.entries() }
        #expect(message?.contains("keys.json has 2 hard links") == true, "\(String(describing: message))")
        #expect(unlink(keysVictim) == 0)
        #expect(try device.store.entries().count == 2, "one name again: accepted")

        let ledger = device.store.ledger
        try? FileManager.default.removeItem(atPath: ledger.path)
        let victim = device.directory.file("victim.sqlite")
        try Data("not a ledger".utf8).write(to: URL(fileURLWithPath: victim))
        #expect(chmod(victim, 0o600) == 0)
        #expect(link(victim, ledger.path) == 0)
        #expect(throws: (any Error).self) { try ledger.check() }
        #expect(try Data(contentsOf: URL(fileURLWithPath: victim)) == Data("not a ledger".utf8), "nothing written")
        let result = device.decryptor.open(try device.seal(samplePayload))
        #expect(result.status == .decrypted, "a refused ledger never blocks delivery")
        #expect(try Data(contentsOf: URL(fileURLWithPath: victim)) == Data("not a ledger".utf8))

        #expect(unlink(ledger.path) == 0)
        #expect(link(victim, ledger.path + "-journal") == 0)
        #expect(throws: (any Error).self) { try ledger.check() }
    }
}
