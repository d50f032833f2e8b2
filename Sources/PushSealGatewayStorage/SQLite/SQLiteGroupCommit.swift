internal import Foundation
internal import PushSealCore
internal import Synchronization

/// Group commit for the SQLite writer: concurrent write transactions share one `BEGIN IMMEDIATE
/// … COMMIT`, and so one fsync, instead of taking one each in turn.
///
/// Every caller queues its transaction and waits. Whichever caller finds no batch running leads:
/// it takes every transaction queued at that moment (up to ``maximumBatch``), runs each inside a
/// savepoint of one database transaction, commits, and wakes the others with their results. While
/// it commits, new transactions queue up for the next leader, so the batch grows with the load
/// and a lone caller pays no wait at all.
///
/// Each transaction keeps its meaning: they run one after the other and each sees the ones before
/// it; one that throws is rolled back to its savepoint alone, and its caller gets the error while
/// the others commit. No caller hears of success before the commit that holds its writes: when the
/// commit fails, every transaction of the batch fails. A caller whose transaction has not started
/// within ``SQLiteDatabase/callWait`` gives up (the database is busy); one that started always
/// waits for its batch's commit, a bounded time. A body may run on another caller's thread, and
/// must not start a transaction of its own (it would wait for itself).
package final class SQLiteGroupCommit: @unchecked Sendable {
    /// The most transactions in one commit: a bound on the time a batch holds the writer.
    package static let maximumBatch = 256

    /// A transaction waiting for its batch, and then its result.
    package final class Pending {
        /// Released once run (or given up), so that nothing holds the caller's closure after it returns.
        fileprivate var body: ((SQLiteDatabase.Transaction) throws -> Void)?
        /// When its caller gives up waiting (``SQLiteDatabase/callWait`` after it asked).
        fileprivate let deadline: ContinuousClock.Instant
        fileprivate var started = false
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
    private var leading = false
    /// Runs one batch in one database transaction (BEGIN, each body in a savepoint, COMMIT),
    /// waiting for the database no later than the deadline it is given.
    private let runBatch: ([Pending], ContinuousClock.Instant) throws -> Void

    /// A group commit whose batches `runBatch` runs on the writer, waiting for SQLite's lock until
    /// the earliest deadline of the batch's callers (``run(_:transaction:)`` does the work).
    package init(runBatch: @escaping ([Pending], ContinuousClock.Instant) throws -> Void) { self.runBatch = runBatch }

    /// The commits, transactions and busy time so far.
    package var activity: Activity { counted.withLock { $0 } }

    /// Runs `body` in the next batch; returns once the batch committed.
    /// - Throws: what `body` threw (its writes rolled back), the commit's failure, or
    ///   ``SQLiteDatabase/Failure`` when it waited ``SQLiteDatabase/callWait`` without starting.
    package func perform(_ body: (SQLiteDatabase.Transaction) throws -> Void) throws {
        // The caller waits here until its body ran, so the closure never outlives this call.
        try withoutActuallyEscaping(body) { body in
            let pending = Pending(body: body, deadline: .now + SQLiteDatabase.callWait)
            let deadline = Date(timeIntervalSinceNow: SQLiteDatabase.callWait.seconds)
            condition.lock()
            queue.append(pending)
            while !pending.finished {
                if !pending.started && ContinuousClock.now >= pending.deadline {
                    queue.removeAll { $0 === pending }
                    pending.body = nil
                    condition.unlock()
                    throw SQLiteDatabase.Failure.busy("the database stayed busy for \(SQLiteDatabase.callWait)")
                }
                if !leading {
                    leading = true
                    let batch = Array(queue.prefix(Self.maximumBatch))
                    queue.removeFirst(batch.count)
                    for member in batch { member.started = true }
                    condition.unlock()
                    var batchFailure: (any Error)?
                    let earliest = batch.map(\.deadline).min() ?? pending.deadline
                    let clock = ContinuousClock()
                    let started = clock.now
                    do {
                        try runBatch(batch, earliest)
                    } catch {
                        batchFailure = error
                    }
                    let busy = clock.now - started
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
                    leading = false
                    condition.broadcast()
                    continue
                }
                // Past the deadline, the check above gives up, or (started) the batch ends soon.
                _ = condition.wait(until: pending.started ? Date(timeIntervalSinceNow: 0.05) : deadline)
            }
            condition.unlock()
            if let failure = pending.failure { throw failure }
        }
    }

    /// Runs `batch` in `transaction`, the writer's open transaction: each body between a savepoint
    /// and its release, rolled back to it when the body throws.
    /// - Throws: when BEGIN, a savepoint or COMMIT fails; the whole batch is then rolled back.
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
                try transaction.query("ROLLBACK TO pending_write")
                try transaction.query("RELEASE pending_write")
            }
        }
    }
}
