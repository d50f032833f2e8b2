import Foundation
import PushSealCore
import PushSealTestSupport
import Testing

@testable import PushSealDecryptor

@Suite("Event ledger")
struct EventLedgerTests {
    @Test("the first record of an event_id is new, every later one a duplicate")
    func duplicates() throws {
        let temporary = TemporaryDirectory()
        let ledger = EventLedger(path: temporary.file("ledger.sqlite"))
        #expect(try ledger.record(eventID: "a") == .new)
        #expect(try ledger.record(eventID: "a") == .duplicate)
        #expect(try ledger.record(eventID: "b") == .new)
        #expect(try ledger.eventCount() == 2)
        let mode = try FileManager.default.attributesOfItem(atPath: ledger.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("entries older than 30 days are pruned")
    func pruning() throws {
        let temporary = TemporaryDirectory()
        let ledger = EventLedger(path: temporary.file("ledger.sqlite"))
        let start = 1_800_000_000
        #expect(try ledger.record(eventID: "old", now: start) == .new)
        #expect(try ledger.record(eventID: "recent", now: start + 29 * 86_400) == .new)
        #expect(try ledger.record(eventID: "today", now: start + 31 * 86_400) == .new)
        #expect(try ledger.eventCount() == 2)
        #expect(try ledger.record(eventID: "old", now: start + 31 * 86_400) == .new, "forgotten after 30 days")
    }

    @Test("the schema version is written, a file from before versioning is adopted, a newer one refused")
    func schemaVersion() throws {
        let temporary = TemporaryDirectory()
        let fresh = EventLedger(path: temporary.file("fresh.sqlite"))
        _ = try fresh.record(eventID: "a")
        #expect(try Self.userVersion(fresh.path) == EventLedger.schemaVersion)

        let unversioned = EventLedger(path: temporary.file("unversioned.sqlite"))
        let old = try SQLiteConnection(path: unversioned.path)
        try old.execute(
            """
            CREATE TABLE events (event_id TEXT PRIMARY KEY NOT NULL, first_seen INTEGER NOT NULL);
            CREATE TABLE outcomes (outcome TEXT PRIMARY KEY NOT NULL, count INTEGER NOT NULL);
            INSERT INTO events VALUES ('seen-before', \(Int(Date().timeIntervalSince1970)));
            """)
        #expect(try unversioned.record(eventID: "seen-before") == .duplicate, "the old file's entries are kept")
        #expect(try Self.userVersion(unversioned.path) == EventLedger.schemaVersion)

        let newer = EventLedger(path: temporary.file("newer.sqlite"))
        try SQLiteConnection(path: newer.path).execute("PRAGMA user_version = \(EventLedger.schemaVersion + 1)")
        let error = #expect(throws: (any Error).self) { try newer.record(eventID: "a") }
        #expect("\(error.map { "\($0)" } ?? "")".contains("schema version \(EventLedger.schemaVersion + 1)"))
        #expect(try SQLiteConnection(path: newer.path).pairs("SELECT name, 0 FROM sqlite_master").isEmpty, "untouched")
    }

    @Test(
        "version 1 is taken up to 2 with its events kept; messages and event ids are apart: neither passes for the other"
    )
    func messagesApart() throws {
        let temporary = TemporaryDirectory()
        let ledger = EventLedger(path: temporary.file("v1.sqlite"))
        let old = try SQLiteConnection(path: ledger.path)
        try old.execute(
            """
            CREATE TABLE events (event_id TEXT PRIMARY KEY NOT NULL, first_seen INTEGER NOT NULL);
            CREATE INDEX events_by_age ON events (first_seen);
            CREATE TABLE outcomes (outcome TEXT PRIMARY KEY NOT NULL, count INTEGER NOT NULL);
            INSERT INTO events VALUES ('m-1', \(Int(Date().timeIntervalSince1970)));
            PRAGMA user_version = 1;
            """)
        #expect(try ledger.record(messageID: "m-1") == .new, "an event id of the same text is no message")
        #expect(try ledger.record(eventID: "m-1") == .duplicate, "version 1's events are kept")
        #expect(try ledger.record(messageID: "m-1") == .duplicate)
        #expect(try Self.userVersion(ledger.path) == 2)
        let start = 1_800_000_000
        #expect(try ledger.record(messageID: "m-2", now: start) == .new)
        #expect(try ledger.record(messageID: "m-2", now: start + 29 * 86_400) == .duplicate)
        #expect(try ledger.record(messageID: "m-3", now: start + 31 * 86_400) == .new)
        #expect(try ledger.record(messageID: "m-2", now: start + 31 * 86_400) == .new, "forgotten after 30 days")
    }

    private static func userVersion(_ path: String) throws -> Int? {
        try SQLiteConnection(path: path).pairs("SELECT 'v', user_version FROM pragma_user_version").first?.1
    }

    @Test("outcome counters count reasons, never content; decrypt records event ids only when asked")
    func counters() throws {
        let device = try Device()
        let sealed = try device.seal(samplePayload)
        let recording = device.decryptor
        #expect(recording.open(sealed).duplicate == false)
        #expect(recording.open(sealed).duplicate == true)
        var tampered = sealed
        tampered["enc"] = .string("AAAA")
        _ = recording.open(tampered)
        #expect(try device.store.ledger.outcomeCounts() == ["decrypted": 1, "duplicate": 1, "unsupported-version": 1])
        let other = try Device()
        #expect(Decryptor(keyStore: other.store).open(try other.seal(samplePayload)).duplicate == false)
        #expect(
            !FileManager.default.fileExists(atPath: other.store.ledger.path), "without a ledger, nothing is written")
    }

    @Test("many threads recording the same ids: each id is new exactly once")
    func concurrentRecording() throws {
        let temporary = TemporaryDirectory()
        let ledger = EventLedger(path: temporary.file("ledger.sqlite"))
        let newCount = Protected(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for index in 0..<50 where (try? ledger.record(eventID: "evt-\(index)")) == .new {
                newCount.withLock { $0 += 1 }
            }
        }
        #expect(newCount.withLock { $0 } == 50)
    }
}

@Suite("Event ledger under attack")
struct EventLedgerHardeningTests {
    @Test("event_ids that differ only after a NUL are different events")
    func nulInEventID() throws {
        let temporary = TemporaryDirectory()
        let ledger = EventLedger(path: temporary.file("ledger.sqlite"))
        #expect(try ledger.record(eventID: "msg\u{0}A") == .new)
        #expect(try ledger.record(eventID: "msg\u{0}B") == .new)
        #expect(try ledger.record(eventID: "msg") == .new)
        #expect(try ledger.record(eventID: "msg\u{0}A") == .duplicate)
        try ledger.countOutcome("odd\u{0}name")
        #expect(try ledger.outcomeCounts()["odd\u{0}name"] == 1)
    }

    /// Damages the ledger at `path` from byte `offset` on, with `filler`.
    static func damage(_ path: String, from offset: Int, filler: UInt8) throws {
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: Data(repeating: filler, count: max(size - offset, 4096)))
        try handle.close()
    }

    @Test(
        "a corrupt ledger is moved aside, a fresh one counts ledger-reset, and duplicates are detected again",
        arguments: [("not a database", 0), ("damaged pages", 4096)])
    func corruption(_ kind: String, _ offset: Int) throws {
        let temporary = TemporaryDirectory()
        let resets = Protected<[String]>([])
        let ledger = EventLedger(path: temporary.file("ledger.sqlite")) { movedTo in
            resets.withLock { $0.append(movedTo) }
        }
        for index in 0..<500 { _ = try ledger.record(eventID: "event-\(index)") }
        try Self.damage(ledger.path, from: offset, filler: 0xA5)

        #expect(try ledger.record(eventID: "event-1") == .new, "\(kind): the damaged ledger was replaced")
        #expect(try ledger.record(eventID: "event-1") == .duplicate, "\(kind): and the fresh one detects repeats")
        #expect(try ledger.outcomeCounts()[EventLedger.resetOutcome] == 1)
        let moved = resets.withLock { $0 }
        #expect(moved.count == 1)
        #expect(moved.first?.hasPrefix(ledger.path + ".corrupt-") == true)
        #expect(FileManager.default.fileExists(atPath: moved.first ?? ""))
    }

    @Test("the decryptor still delivers, and records, when the ledger is corrupt")
    func decryptorAfterCorruption() throws {
        let device = try Device()
        let payload = try device.seal(samplePayload)
        #expect(device.decryptor.open(payload).duplicate == false)
        try Self.damage(device.store.ledger.path, from: 0, filler: 0x5A)
        let again = device.decryptor.open(payload)
        #expect(again.status == .decrypted)
        #expect(again.duplicate == false, "the old ledger is gone, so this delivery is new")
        #expect(device.decryptor.open(payload).duplicate == true)
        #expect(try device.store.ledger.outcomeCounts()[EventLedger.resetOutcome] == 1)
    }
}
