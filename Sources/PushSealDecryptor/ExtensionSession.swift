public import Dispatch
public import PushSealCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The lifecycle of one Notification Service Extension invocation, without UIKit.
///
/// ``didReceive(on:)`` starts opening the payload in the background under a deadline, then
/// fetching its media (three levels: text with media, text without media, the placeholder);
/// ``timeWillExpire()`` delivers the decrypted text without its media when it is ready, else the
/// notification as it arrived (under a require-sealed policy, the neutral text), degraded with
/// `timeout`, unless the content was already delivered. The content handler is called exactly
/// once, whichever comes first, even when both race.
///
/// The ledger records only what was shown: the `event_id` of decrypted content is recorded (and
/// `duplicate` set) after the session has claimed delivery and before the handler is called;
/// when the time ran out first, the outcome counted is `timeout`, once, and the late result is
/// neither recorded nor counted.
///
/// With a ``ReceiptOutbox``, the receipt of what is shown (envelope-v1.md, "Receipts") is posted
/// before the handler is called, within ``receiptBudget`` and never past the session's own
/// deadline; one that does not get there is kept, and the receipts kept by earlier runs are sent
/// after the handler was called. When the time runs out, the `timeout` receipt is kept for the
/// next run without trying: the handler is due at once.
///
/// ```swift
/// // In UNNotificationServiceExtension:
/// session = ExtensionSession(payload: userInfo, decryptor: decryptor) { result in
///     contentHandler(UNMutableNotificationContent(result.notification))
/// }
/// session.didReceive()
/// // serviceExtensionTimeWillExpire(): session.timeWillExpire()
/// ```
public final class ExtensionSession: Sendable {
    /// The work budget from ``didReceive(on:)``: iOS allows about 30 seconds; this leaves a margin.
    public static let defaultBudget: Duration = .seconds(25)
    /// The most a receipt may hold up the notification: a gateway answers in milliseconds, or is
    /// not there.
    public static let receiptBudget: Duration = .seconds(2)

    private struct State {
        var delivered = false
        /// Decrypted content waiting for its media: what `timeWillExpire` delivers instead of
        /// the placeholder.
        var decrypted: DecryptionResult?
    }

    private let payload: JSONObject
    private let decryptor: Decryptor
    private let budget: Duration
    private let contentHandler: @Sendable (DecryptionResult) -> Void
    private let receipts: ReceiptOutbox?
    private let state = Protected(State())

    /// A session for `payload`; `contentHandler` receives the one result, whose receipt goes
    /// through `receipts` (none when nil).
    public init(
        payload: JSONObject, decryptor: Decryptor, budget: Duration = ExtensionSession.defaultBudget,
        receipts: ReceiptOutbox? = nil, contentHandler: @escaping @Sendable (DecryptionResult) -> Void
    ) {
        self.payload = payload
        self.decryptor = decryptor
        self.budget = budget
        self.receipts = receipts
        self.contentHandler = contentHandler
    }

    /// Starts opening the payload on a background queue and returns at once.
    public func didReceive(on queue: DispatchQueue = .global(qos: .userInitiated)) {
        let deadline = ContinuousClock.now.advanced(by: budget)
        queue.async { [self] in
            let opened = decryptor.prepare(payload, deadline: deadline)
            if opened.status == .decrypted { state.withLock { $0.decrypted = opened } }
            let result = decryptor.attachMedia(to: opened, deadline: deadline) { [state] in
                state.withLock { $0.delivered }
            }
            let first = state.withLock { state -> Bool in
                guard !state.delivered else { return false }
                state.delivered = true
                return true
            }
            if first {
                let shown = decryptor.record(result)
                let receiptDeadline = min(deadline, ContinuousClock.now.advanced(by: Self.receiptBudget))
                receipts?.report(shown, deadline: receiptDeadline)
                contentHandler(shown)
                receipts?.flush(deadline: receiptDeadline)
            } else if let attachment = result.attachment {
                unlink(attachment.file)  // fetched too late to be shown
            }
        }
    }

    /// The system's time is up: unless the content was delivered, deliver the decrypted text
    /// without its media if it is ready (media `media-timeout`), else what
    /// ``Decryptor/unopened(_:reason:)`` shows for `timeout`.
    public func timeWillExpire() {
        let claimed = state.withLock { state -> (first: Bool, decrypted: DecryptionResult?) in
            guard !state.delivered else { return (false, nil) }
            state.delivered = true
            return (true, state.decrypted)
        }
        guard claimed.first else { return }
        if var decrypted = claimed.decrypted {
            decrypted.mediaFailure = MediaFailure(.timeout, "the time ran out before the media was ready")
            let shown = decryptor.record(decrypted)
            receipts?.keep(shown)
            contentHandler(shown)
        } else {
            let shown = decryptor.unopened(payload, reason: .timeout)
            receipts?.keep(shown)
            contentHandler(shown)
            decryptor.recordTimeout()
        }
    }

    /// True once the content handler has been called.
    public var isDelivered: Bool { state.withLock { $0.delivered } }
}
