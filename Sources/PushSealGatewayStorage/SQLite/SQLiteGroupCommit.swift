internal import Foundation
internal import PushSealCore
internal import Synchronization

/// Group commit for the SQLite writer: concurrent write transactions share one `BEGIN IMMEDIATE
/// … COMMIT`, and so one fsync, instead of taking one each in turn.
///
/// Every caller queues its transaction and waits. The writer's thread takes every transaction
/// queued at that moment (up to ``maximumBatch``), runs each inside a savepoint of one database
/// transaction, commits, and wakes their callers with their results. While it commits, new
/// transactions queue up for the next batch, so the batch grows with the load and a lone caller
/// pays no wait at all. The thread runs while there is work, and ends after a second with none.
///
/// Each transaction keeps its meaning: they run one after the other and each sees the ones before
/// it; one that throws is rolled back to its savepoint alone, and its caller gets the error while
/// the others commit. No caller hears of success before the commit that holds its writes: when the
/// commit fails, every transaction of the batch fails.
///
/// Every wait is bounded, a frozen disk included: a caller whose transaction has not started
/// within ``SQLiteDatabase/callWait`` gives up (the database is busy; nothing was written), and one
/// whose transaction started gives up once its commit has run ``commitWait`` without ending (the
/// disk does not answer: its writes may still be committed later, and the failure says so). The
/// writer's thread, not the caller's, waits on the disk. What the last batch came to, and whether
/// one has run too long, is ``health``.
package final class SQLiteGroupCommit: @unchecked Sendable {
    /// The most transactions in one commit: a bound on the time a batch holds the writer.
    package static let maximumBatch = 256
    /// How long a caller waits for the commit once its transaction has started: a commit, fsync
    /// included, takes milliseconds; one that has run this long is a disk that does not answer.
    package static let commitWait = Duration.seconds(2)
    /// How long the writer's thread waits for work before it ends.
    static let idleWait = Duration.seconds(1)

    /// A transaction waiting for its batch, and then its result.
    package final class Pending {
        /// Released once run (or given up), so that nothing holds the caller's closure after it returns.
        fileprivate var body: ((SQLiteDatabase.Transaction) throws -> Void)?
        /// When its caller gives up waiting for it to start (``SQLiteDatabase/callWait`` after it asked).
        fileprivate let deadline: ContinuousClock.Instant
        /// When its batch started, once it did.
        fileprivate var startedAt: ContinuousClock.Instant?
        fileprivate var finished = false
        fileprivate var failure: (any Error)?

        fileprivate init(body: @escaping (SQLiteDatabase.Transaction) throws -> Void, deadline: ContinuousClock.Instant)
        {
            self.body = body
            self.deadline = deadline
        }
    }

    /// What the writer has done so far, for `/metrics`.
    package struct Activity: Sendable, Equatable {
        /// Commits made: fewer than the transactions when they were grouped.
        package var commits = 0
        /// Transactions committed (a body that threw, rolled back to its savepoint, is not counted).
        package var transactions = 0
        /// Time spent running batches, in nanoseconds: from the wait for the writer's connection and
        /// SQLite's lock to the end of `COMMIT`, its fsync included. Near the time elapsed, the one
        /// writer is the limit.
        package var busyNanoseconds = 0
    }

    private let condition = NSCondition()
    private let counted = Mutex(Activity())
    private var queue: [Pending] = []
    /// Whether the writer's thread runs.
    private var writing = false
    /// Follows the batches, for ``health``.
    private let tracker = WriteHealthTracker(stallAfter: commitWait)
    /// Runs one batch in one database transaction (BEGIN, each body in a savepoint, COMMIT),
    /// waiting for the database no later than the deadline it is given; whether it changed rows.
    private let runBatch: ([Pending], ContinuousClock.Instant) throws -> Bool

    /// A group commit whose batches `runBatch` runs on the writer, waiting for SQLite's lock until
    /// the earliest deadline of the batch's callers (``run(_:transaction:)`` does the work), and
    /// saying whether the batch changed rows (a commit that changed none wrote nothing to the disk,
    /// and says nothing of it).
    package init(runBatch: @escaping ([Pending], ContinuousClock.Instant) throws -> Bool) { self.runBatch = runBatch }

    /// The commits, transactions and busy time so far.
    package var activity: Activity { counted.withLock { $0 } }

    /// Whether the writer can write now: stalled when a batch has run longer than ``commitWait``
    /// (a frozen disk), failing when the last batch failed (a full disk, I/O errors), else
    /// writable.
    package var health: StoreWriteHealth { tracker.health }

    /// Runs `body` in the next batch; returns once the batch committed.
    /// - Throws: what `body` threw (its writes rolled back), the commit's failure, or
    ///   ``SQLiteDatabase/Failure`` (busy) when it waited ``SQLiteDatabase/callWait`` without
    ///   starting, or its commit ran ``commitWait`` without ending (then it may still commit).
    package func perform(_ body: @escaping (SQLiteDatabase.Transaction) throws -> Void) throws {
        let pending = Pending(body: body, deadline: .now + SQLiteDatabase.callWait)
        condition.lock()
        queue.append(pending)
        if !writing {
            writing = true
            let thread = Thread { [self] in write() }
            thread.name = "pushseal-gateway.sqlite.writer"
            thread.start()
        }
        condition.broadcast()
        while !pending.finished {
            let now = ContinuousClock.now
            if let startedAt = pending.startedAt {
                if now - startedAt >= Self.commitWait {
                    // The writer keeps the transaction; its outcome is no longer this caller's.
                    condition.unlock()
                    var failure = SQLiteDatabase.Failure.busy(
                        "the database did not commit within \(Self.commitWait): the disk does not answer, and the "
                            + "write may still be committed")
                    failure.outcomeUnknown = true
                    throw failure
                }
                _ = condition.wait(until: Date(timeIntervalSinceNow: (startedAt + Self.commitWait - now).seconds))
            } else {
                if now >= pending.deadline {
                    queue.removeAll { $0 === pending }
                    pending.body = nil
                    condition.unlock()
                    throw SQLiteDatabase.Failure.busy("the database stayed busy for \(SQLiteDatabase.callWait)")
                }
                _ = condition.wait(until: Date(timeIntervalSinceNow: (pending.deadline - now).seconds))
            }
        }
        condition.unlock()
        if let failure = pending.failure { throw failure }
    }

    /// The writer's thread: runs the queued transactions in batches until none has come for
    /// ``idleWait``.
    private func write() {
        condition.lock()
        while true {
            if queue.isEmpty {
                _ = condition.wait(until: Date(timeIntervalSinceNow: Self.idleWait.seconds))
                if queue.isEmpty {
                    writing = false
                    condition.unlock()
                    return
                }
            }
            let batch = Array(queue.prefix(Self.maximumBatch))
            queue.removeFirst(batch.count)
            let started = ContinuousClock.now
            for member in batch { member.startedAt = started }
            let ticket = tracker.began()
            condition.broadcast()
            condition.unlock()
            var batchFailure: (any Error)?
            var wrote = false
            let earliest = batch.map(\.deadline).min() ?? started
            do {
                wrote = try runBatch(batch, earliest)
            } catch {
                batchFailure = error
            }
            let busy = ContinuousClock.now - started
            counted.withLock { activity in
                activity.busyNanoseconds += Int(busy / .nanoseconds(1))
                guard batchFailure == nil else { return }
                activity.commits += 1
                activity.transactions += batch.count(where: { $0.failure == nil })
            }
            condition.lock()
            for member in batch {
                member.body = nil
                if let batchFailure { member.failure = batchFailure }
                member.finished = true
            }
            // A transaction's statement may fail for the disk as the commit itself may; a busy lock
            // or a constraint says nothing of it, nor does a commit that wrote nothing (an idle claim).
            tracker.ended(
                ticket, failures: ([batchFailure] + batch.map(\.failure)).compactMap { $0 },
                wrote: batchFailure == nil && wrote)
            condition.broadcast()
        }
    }

    /// Runs `batch` in `transaction`, the writer's open transaction: each body between a savepoint
    /// and its release, rolled back to it when the body throws.
    /// - Throws: when BEGIN, a savepoint or COMMIT fails, or a body's failure made SQLite roll back
    ///   the whole transaction itself (a full disk, an I/O error: that failure, for every member);
    ///   the whole batch is then rolled back.
    package static func run(_ batch: [Pending], transaction: SQLiteDatabase.Transaction) throws {
        for member in batch {
            guard let body = member.body else { continue }
            member.body = nil
            try transaction.query("SAVEPOINT pending_write")
            do {
                try body(transaction)
                try transaction.query("RELEASE pending_write")
            } catch let failure {
                member.failure = failure
                guard transaction.isOpen else { throw failure }
                try transaction.query("ROLLBACK TO pending_write")
                try transaction.query("RELEASE pending_write")
            }
        }
    }
}
