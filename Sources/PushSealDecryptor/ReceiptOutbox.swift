internal import PushSealCore

/// Receipts a device reports (envelope-v1.md, "Receipts"), and those it could not send yet,
/// kept in the store's directory to be sent later as a batch.
///
/// `receipts.json` (0600) holds at most ``capacity`` receipts, `[{"url", "capability", "outcome",
/// "reason"?}]`, the oldest dropped first: a receipt is worth little once it is days late, and
/// the container is no place for an unbounded file. It is written under the store's writers'
/// lock, by rename, and the lock is never held while the network is used (iOS ends an app
/// suspended with a lock on a file of a shared container). A file that does not parse is
/// started afresh: receipts are best effort, never a reason for a notification to fail.
///
/// The extension reports through ``ExtensionSession``; the app calls ``flush(deadline:)`` at
/// launch, so that receipts an extension could not send (no network, a gateway down, a deadline
/// run out) reach the gateway.
public struct ReceiptOutbox: Sendable {
    /// The most receipts kept.
    public static let capacity = 100
    /// The file that keeps them, in the store's directory.
    static let fileName = "receipts.json"
    /// The largest file read: far above ``capacity`` receipts of about 200 bytes.
    static let maximumFileSize = 1 << 20

    /// The store's directory, where unsent receipts are kept; nil keeps none (an extension with
    /// no App Group container).
    public let directory: String?
    private let poster: ReceiptPoster

    /// An outbox keeping unsent receipts in `store`'s directory (none when nil), posting them
    /// with `poster`.
    public init(store: FileKeyStore?, poster: ReceiptPoster = ReceiptPoster()) {
        directory = store?.directory
        self.poster = poster
    }

    /// Posts the receipt of `result` (``DecryptionResult/receiptOutcome`` with its ticket) before
    /// `deadline`; one that did not reach the gateway, or met a 429 or 5xx, is kept for later. A
    /// result without a ticket reports nothing.
    /// - Returns: whether the gateway took it now.
    @discardableResult
    public func report(_ result: DecryptionResult, deadline: ContinuousClock.Instant) -> Bool {
        guard let ticket = result.receipt, let outcome = result.receiptOutcome else { return false }
        do {
            try poster.post(outcome, with: ticket, deadline: deadline)
            return true
        } catch {
            if error.isWorthRetrying { keep([Kept(outcome: outcome, ticket: ticket)]) }
            return false
        }
    }

    /// Keeps the receipt of `result` to send later, without trying now (the time is up).
    public func keep(_ result: DecryptionResult) {
        guard let ticket = result.receipt, let outcome = result.receiptOutcome else { return }
        keep([Kept(outcome: outcome, ticket: ticket)])
    }

    /// Sends the kept receipts, one batch per gateway, before `deadline`; those a gateway answered
    /// (taken, or refused for good) are removed, the others stay.
    /// - Returns: how many were removed.
    @discardableResult
    public func flush(deadline: ContinuousClock.Instant) -> Int {
        let kept = read()
        guard !kept.isEmpty else { return 0 }
        var answered: Set<String> = []
        for (url, receipts) in Dictionary(grouping: kept, by: \.ticket.batchURL) {
            guard ContinuousClock.now < deadline else { break }
            do {
                try poster.postBatch(receipts.map { ($0.outcome, $0.ticket) }, to: url, deadline: deadline)
                answered.formUnion(receipts.map(\.key))
            } catch {
                if !error.isWorthRetrying { answered.formUnion(receipts.map(\.key)) }
            }
        }
        guard !answered.isEmpty else { return 0 }
        update { $0.removeAll { answered.contains($0.key) } }
        return answered.count
    }

    /// How many receipts are kept.
    public var keptCount: Int { read().count }

    /// One kept receipt.
    struct Kept {
        let outcome: ReceiptOutcome
        let ticket: ReceiptTicket

        /// Tells it from the others: its delivery and outcome.
        var key: String { ticket.deliveryID + " " + outcome.description }

        var json: JSONValue {
            var object = ticket.json
            for (name, value) in outcome.json { object[name] = value }
            return .object(object)
        }

        init(outcome: ReceiptOutcome, ticket: ReceiptTicket) {
            self.outcome = outcome
            self.ticket = ticket
        }

        /// A kept receipt as the file holds it; nil for one that does not parse.
        init?(_ value: JSONValue) {
            guard var object = value.objectValue else { return nil }
            let outcome: ReceiptOutcome?
            switch (object["outcome"]?.stringValue, object["reason"]?.stringValue) {
            case ("displayed"?, nil): outcome = .displayed
            case ("degraded"?, let reason?): outcome = ReceiptOutcome.degraded(reason: reason)
            default: outcome = nil
            }
            object["outcome"] = nil
            object["reason"] = nil
            guard let outcome, let ticket = try? ReceiptTicket(json: .object(object)) else { return nil }
            self.init(outcome: outcome, ticket: ticket)
        }
    }

    /// Adds `receipts` to the file, dropping the oldest past ``capacity``.
    private func keep(_ receipts: [Kept]) {
        update { kept in
            kept.append(contentsOf: receipts)
            if kept.count > Self.capacity { kept.removeFirst(kept.count - Self.capacity) }
        }
    }

    /// The kept receipts, oldest first; none when there is no file or it does not parse.
    private func read() -> [Kept] {
        guard let directory, let store = try? StoreDirectory(path: directory) else { return [] }
        return Self.parse(store)
    }

    /// Changes the kept receipts with `change`, under the store's writers' lock.
    private func update(_ change: (inout [Kept]) -> Void) {
        guard let directory, let store = try? StoreDirectory(path: directory) else { return }
        _ = try? store.withExclusiveLock(FileKeyStore.lockName) {
            var kept = Self.parse(store)
            change(&kept)
            var bytes = JSONWriter.bytes(.array(kept.map(\.json)))
            defer { SecureMemory.wipe(&bytes) }
            try store.replace(Self.fileName, with: bytes)
        }
    }

    private static func parse(_ store: StoreDirectory) -> [Kept] {
        guard store.contains(fileName), var bytes = try? store.read(fileName, maximumSize: maximumFileSize) else {
            return []
        }
        defer { SecureMemory.wipe(&bytes) }
        guard case .array(let items)? = try? JSONParser.parse(bytes) else { return [] }
        return items.compactMap(Kept.init)
    }
}
