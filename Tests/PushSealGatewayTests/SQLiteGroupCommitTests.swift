import Dispatch
import Foundation
import PushSealGatewayStorage
import PushSealTestSupport
import Testing

@testable import PushSealGateway

/// Group commit on the SQLite writer: transactions that arrive together share a commit, and each
/// keeps its own outcome.
@Suite("pushseal-gateway SQLite group commit")
struct SQLiteGroupCommitTests {
    struct Refused: Error {}

    @Test(
        "transactions waiting together share one commit; one that throws is rolled back alone; each sees the earlier ones"
    )
    func sharedCommit() throws {
        let directory = TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.file("group.db"))
        try database.execute("CREATE TABLE rows (id INTEGER PRIMARY KEY, note TEXT NOT NULL)")
        let before = database.writerActivity
        let leaderStarted = DispatchSemaphore(value: 0)
        let all = DispatchGroup()
        // Threads of their own, as the HTTP server's are (a dispatch queue would run a few at a time).
        func spawn(_ body: @escaping @Sendable () -> Void) {
            all.enter()
            Thread {
                body()
                all.leave()
            }.start()
        }
        // The first transaction holds the writer for a while, so that the others queue behind it.
        spawn {
            _ = try? database.transaction { sql in
                leaderStarted.signal()
                Thread.sleep(forTimeInterval: 0.3)
                try sql.query("INSERT INTO rows (id, note) VALUES (0, 'leader')")
            }
        }
        leaderStarted.wait()
        let outcomes = OutcomeLog()
        for index in 1...30 {
            spawn {
                do {
                    let count = try database.transaction { sql -> Int64 in
                        try sql.query("INSERT INTO rows (id, note) VALUES (?, 'follower')", [.integer(Int64(index))])
                        if index == 7 { throw Refused() }
                        return try sql.query("SELECT count(*) FROM rows").first?.first?.integer ?? 0
                    }
                    outcomes.record(index, count: count)
                } catch {
                    outcomes.record(index, count: nil)
                }
            }
        }
        all.wait()
        let rows = try database.read("SELECT id FROM rows ORDER BY id").compactMap { $0.first?.integer }
        #expect(rows == [0] + (1...30).filter { $0 != 7 }.map(Int64.init), "every row but the refused one's")
        #expect(outcomes.failed == [7], "the one that threw got its error, and only it")
        #expect(outcomes.succeeded == 29)
        #expect(outcomes.allSawAtLeastThemselvesAndTheLeader)
        let activity = database.writerActivity
        let commits = activity.commits - before.commits
        #expect(commits <= 4, "31 transactions in \(commits) commits")
        #expect(activity.transactions - before.transactions == 30, "every transaction but the refused one is counted")
        let busySeconds = Double(activity.busyNanoseconds - before.busyNanoseconds) / 1e9
        #expect(busySeconds >= 0.3, "the writer was busy at least while the leader slept: \(busySeconds) s")
    }

    @Test(
        "a commit that does not end: its caller gives up after commitWait, the writer reports it stalled, the next caller gives up after callWait; the write lands once it ends"
    )
    func stalledCommit() throws {
        let directory = TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.file("stalled.db"))
        try database.execute("CREATE TABLE rows (id INTEGER PRIMARY KEY)")
        #expect(database.writeHealth == .writable)
        let ended = DispatchSemaphore(value: 0)
        let clock = ContinuousClock()
        let began = clock.now
        // A transaction that holds the writer 5 s, as a frozen disk holds its fsync.
        let stuck = Result {
            try database.transaction { sql in
                try sql.query("INSERT INTO rows (id) VALUES (1)")
                Thread.sleep(forTimeInterval: 5)
                ended.signal()
            }
        }
        let gaveUp = clock.now - began
        #expect(throws: (any Error).self) { try stuck.get() }
        #expect(
            "\(stuck)".contains("may still be committed") && gaveUp >= SQLiteGroupCommit.commitWait
                && gaveUp < SQLiteGroupCommit.commitWait + .seconds(1), "\(gaveUp): \(stuck)")
        guard case .stalled = database.writeHealth else {
            Issue.record("the writer is not reported stalled: \(database.writeHealth)")
            return
        }
        let next = clock.now
        #expect(throws: (any Error).self) { try database.query("INSERT INTO rows (id) VALUES (2)") }
        #expect(clock.now - next < SQLiteDatabase.callWait + .milliseconds(500), "the next caller waits callWait")
        #expect(ended.wait(timeout: .now() + 6) == .success)
        #expect(eventually(5) { database.writeHealth == .writable })
        #expect(try database.read("SELECT id FROM rows").compactMap { $0.first?.integer } == [1], "it landed")
    }

    @Test("a write refused for a full disk makes the writer report it failing until a write commits again")
    func fullDisk() throws {
        let directory = TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.file("full.db"))
        try database.execute("CREATE TABLE rows (id INTEGER PRIMARY KEY, filler BLOB)")
        // The writer's file may not grow past its pages now: SQLite answers SQLITE_FULL.
        let pages = try #require(try database.read("PRAGMA page_count").first?.first?.integer)
        try database.execute("PRAGMA max_page_count = \(pages)")
        let refused = Result { try database.query("INSERT INTO rows (filler) VALUES (zeroblob(100000))") }
        guard case .failure(let failure) = refused else {
            Issue.record("the write passed")
            return
        }
        #expect(storeFailureCause(failure) == .full)
        #expect(database.writeHealth == .failing(.full))
        try database.execute("PRAGMA max_page_count = 1073741823")
        try database.query("INSERT INTO rows (filler) VALUES (zeroblob(100000))")
        #expect(database.writeHealth == .writable)
    }

    /// What each follower's transaction returned.
    final class OutcomeLog: @unchecked Sendable {
        private let lock = NSLock()
        private var counts: [Int: Int64?] = [:]

        func record(_ index: Int, count: Int64?) { lock.withLock { counts[index] = count } }
        var failed: [Int] { lock.withLock { counts.filter { $0.value == nil }.map(\.key).sorted() } }
        var succeeded: Int { lock.withLock { counts.values.filter { $0 != nil }.count } }
        /// Each sees its own row and the leader's, committed before it or in its batch.
        var allSawAtLeastThemselvesAndTheLeader: Bool {
            lock.withLock { counts.values.allSatisfy { $0.map { $0 >= 2 } ?? true } }
        }
    }
}
