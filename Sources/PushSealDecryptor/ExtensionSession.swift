public import Dispatch
public import PushSealCore

/// The lifecycle of one Notification Service Extension invocation, without UIKit.
///
/// ``didReceive(on:)`` starts opening the payload in the background under a deadline;
/// ``timeWillExpire()`` delivers the notification as it arrived, degraded with `timeout`, unless
/// the content was already delivered. The content handler is called exactly once, whichever
/// comes first, even when both race.
///
/// The ledger records only what was shown: the `event_id` of decrypted content is recorded (and
/// `duplicate` set) after the session has claimed delivery and before the handler is called;
/// when the time ran out first, the outcome counted is `timeout`, once, and the late result is
/// neither recorded nor counted.
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

    private struct State {
        var delivered = false
    }

    private let payload: JSONObject
    private let decryptor: Decryptor
    private let budget: Duration
    private let contentHandler: @Sendable (DecryptionResult) -> Void
    private let state = Protected(State())

    /// A session for `payload`; `contentHandler` receives the one result.
    public init(
        payload: JSONObject, decryptor: Decryptor, budget: Duration = ExtensionSession.defaultBudget,
        contentHandler: @escaping @Sendable (DecryptionResult) -> Void
    ) {
        self.payload = payload
        self.decryptor = decryptor
        self.budget = budget
        self.contentHandler = contentHandler
    }

    /// Starts opening the payload on a background queue and returns at once.
    public func didReceive(on queue: DispatchQueue = .global(qos: .userInitiated)) {
        let deadline = ContinuousClock.now.advanced(by: budget)
        queue.async { [self] in
            let result = decryptor.prepare(payload, deadline: deadline)
            let first = state.withLock { state -> Bool in
                guard !state.delivered else { return false }
                state.delivered = true
                return true
            }
            if first { contentHandler(decryptor.record(result)) }
        }
    }

    /// The system's time is up: unless the content was delivered, deliver the notification as
    /// it arrived, then count `timeout`.
    public func timeWillExpire() {
        let first = state.withLock { state -> Bool in
            guard !state.delivered else { return false }
            state.delivered = true
            return true
        }
        guard first else { return }
        contentHandler(.asArrived(payload, reason: .timeout))
        decryptor.recordTimeout()
    }

    /// True once the content handler has been called.
    public var isDelivered: Bool { state.withLock { $0.delivered } }
}
