import Foundation
import PushSealCore
import PushSealTestSupport
import Testing

@testable import PushSealDecryptor

@Suite("File key store")
struct FileKeyStoreTests {
    static func mode(_ path: String) throws -> Int {
        try #require((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? Int)
    }

    @Test("init makes a 0700 directory and a 0600 key file; init again is a no-op; a foreign directory is refused")
    func initialize() throws {
        let temporary = TemporaryDirectory()
        let store = try FileKeyStore.initialize(directory: temporary.file("store"))
        #expect(try Self.mode(store.directory) == 0o700)
        #expect(try Self.mode(store.keysPath) == 0o600)
        let key = try PrivateKey.generate(suite: .p256)
        try store.importDeviceKey(key)
        try FileKeyStore.initialize(directory: store.directory)
        #expect(try store.entries().map(\.kid) == [key.kid], "a second init keeps the keys")
        try temporary.write("other/notes.txt", "")
        #expect(throws: PushSealError.self) { try FileKeyStore.initialize(directory: temporary.file("other")) }
    }

    @Test("rotate makes the new key current and keeps the older ones; retire removes them; current cannot be retired")
    func rotation() throws {
        let temporary = TemporaryDirectory()
        let store = try FileKeyStore.initialize(directory: temporary.file("store"))
        let first = try store.rotate(suite: .x25519)
        let second = try store.rotate()
        let entries = try store.entries()
        #expect(entries.map(\.kid) == [first.kid, second.kid])
        #expect(entries.map(\.current) == [false, true])
        #expect(entries.allSatisfy { $0.suite == .x25519 && $0.role == .device })
        #expect(try store.loadKeyRing().deviceKeys.count == 2)
        #expect(throws: PushSealError(.invalidKey, "")) { try store.retire(kid: second.kid) }
        try store.retire(kid: first.kid)
        #expect(try store.entries().map(\.kid) == [second.kid])
        #expect(throws: PushSealError(.invalidKey, "")) { try store.retire(kid: "no-such-kid") }
        let shared = try store.rotate(suite: .xChaCha)
        #expect(shared.publicKey == nil)
        #expect(try store.entries().last?.suite == .xChaCha)
    }

    /// Whether another writer could take the store's lock now. It asks without waiting, so a
    /// lock held by mistake fails the test at once; a tight time limit in its place failed the
    /// test in CI when the two-core machine's cooperative threads were busy with other tests.
    static func lockIsFree(_ store: FileKeyStore) throws -> Bool {
        let file = open(store.directory + "/" + FileKeyStore.lockName, O_RDWR)
        try #require(file >= 0, "the store has its lock file")
        defer { close(file) }
        guard flock(file, LOCK_EX | LOCK_NB) == 0 else { return false }
        flock(file, LOCK_UN)
        return true
    }

    @Test(
        "the async rotate: the key is stored and not current while deliver awaits, current after, gone if it throws",
        .timeLimit(.minutes(10)))
    func asyncRotation() async throws {
        struct Refused: Error {}
        let temporary = TemporaryDirectory()
        let store = try FileKeyStore.initialize(directory: temporary.file("store"))
        let first = try store.rotate(suite: .p256)
        let seenHeld = try store.update { _ in try !Self.lockIsFree(store) }
        #expect(seenHeld, "a writer's lock is seen")
        let second = try await store.rotate { key in
            // Meanwhile the store holds the new key, not current, and no lock.
            let entries = try store.entries()
            #expect(entries.map(\.kid) == [first.kid, key.kid] && entries.map(\.current) == [true, false])
            try #require(try Self.lockIsFree(store), "deliver runs without the writers' lock")
            try await Task.sleep(for: .milliseconds(10))
            _ = try store.changePolicy { $0.requireSealed = true }
        }
        #expect(second.suite == .p256, "the current key's suite")
        #expect(try store.entries().map(\.current) == [false, true])
        await #expect(throws: Refused.self) {
            try await store.rotate(suite: .x25519) { _ in
                try await Task.sleep(for: .milliseconds(1))
                throw Refused()
            }
        }
        #expect(try store.entries().map(\.kid) == [first.kid, second.kid], "a key never handed out is removed")
    }

    @Test("import refuses a duplicate kid; senders are stored as public keys")
    func imports() throws {
        let temporary = TemporaryDirectory()
        let store = try FileKeyStore.initialize(directory: temporary.file("store"))
        let key = try PrivateKey.generate(suite: .x25519)
        try store.importDeviceKey(key)
        #expect(throws: PushSealError(.invalidKey, "")) { try store.importDeviceKey(key) }
        let sender = try #require(try PrivateKey.generate(suite: .x25519).publicKey)
        try store.importSender(sender)
        let ring = try store.loadKeyRing()
        #expect(ring.trustedSenders.map(\.kid) == [sender.kid])
        #expect(ring.pinsSenders(of: .x25519) && !ring.pinsSenders(of: .p256))
        let text = try String(contentsOfFile: store.keysPath, encoding: .utf8)
        #expect(text.components(separatedBy: "\"d\"").count == 2, "only the device key has a private member")
    }

    @Test("a store readable by group or others is refused, naming the file and the fix")
    func permissions() throws {
        let temporary = TemporaryDirectory()
        let store = try FileKeyStore.initialize(directory: temporary.file("store"))
        try store.importDeviceKey(try PrivateKey.generate(suite: .x25519))
        chmod(store.keysPath, 0o644)
        do {
            _ = try store.loadKeyRing()
            Issue.record("a 0644 key file was accepted")
        } catch let error as PushSealError {
            #expect(error.code == .keyStoreUnavailable)
            #expect(error.detail.contains(store.keysPath) && error.detail.contains("chmod 600"))
        }
        // Each group or other bit alone is refused, on the file and on the directory: 0644 and
        // 0755 above set several at once, which a check of one bit would also catch.
        for bit in [0o040, 0o020, 0o010, 0o004, 0o002, 0o001] as [mode_t] {
            chmod(store.keysPath, 0o600 | bit)
            #expect(throws: PushSealError.self, "keys.json mode \(String(0o600 | bit, radix: 8))") {
                try store.loadKeyRing()
            }
            chmod(store.keysPath, 0o600)
            chmod(store.directory, 0o700 | bit)
            #expect(throws: PushSealError.self, "directory mode \(String(0o700 | bit, radix: 8))") {
                try store.loadKeyRing()
            }
            chmod(store.directory, 0o700)
        }
        #expect(throws: Never.self) { try store.loadKeyRing() }
    }

    @Test("a corrupt or foreign key file is key-store-unavailable, never a crash")
    func corruptFile() throws {
        let temporary = TemporaryDirectory()
        let store = try FileKeyStore.initialize(directory: temporary.file("store"))
        for text in [
            "", "{", "[]", #"{"format":"other"}"#, #"{"format":"pushseal-key-store","version":2,"keys":[]}"#,
            #"{"format":"pushseal-key-store","version":1,"keys":[{"kid":"x"}]}"#,
        ] {
            try text.write(toFile: store.keysPath, atomically: false, encoding: .utf8)
            chmod(store.keysPath, 0o600)
            #expect(throws: PushSealError(.keyStoreUnavailable, ""), "\(text)") { try store.loadKeyRing() }
        }
    }

    @Test("concurrent writers in one process lose no key (flock serialises them)")
    func concurrentWriters() throws {
        let temporary = TemporaryDirectory()
        let store = try FileKeyStore.initialize(directory: temporary.file("store"))
        let created = Protected<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10 {
                if let key = try? store.rotate() { created.withLock { $0.append(key.kid) } }
            }
        }
        let stored = Set(try store.entries().map(\.kid))
        #expect(created.withLock { $0.count } == 80)
        #expect(stored == Set(created.withLock { $0 }))
        #expect(try store.entries().filter(\.current).count == 1)
    }
}
