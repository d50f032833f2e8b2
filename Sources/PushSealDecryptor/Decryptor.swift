public import PushSealCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Opens sealed notifications and rewrites their content: the logic of a Notification Service
/// Extension, steps 1 to 6 of "Opening and rewriting" in envelope-v1.md.
///
/// ``open(_:deadline:)`` never throws and never crashes on any payload: a payload that cannot be
/// opened degrades to the notification exactly as it arrived, with a named reason.
///
/// ```swift
/// let decryptor = Decryptor(keyStore: try FileKeyStore(directory: containerURL.path + "/pushseal"))
/// let result = decryptor.open(userInfo)
/// // result.status: .decrypted, .plain or .degraded(result.reason)
/// ```
public struct Decryptor: Sendable {
    /// Where the device keys come from; read afresh for each payload.
    public let keyStore: any KeyStore
    /// Where `event_id`s and outcome counters are recorded; nil records nothing.
    public let ledger: EventLedger?
    /// How long to wait before reading the store once more when the kid is unknown (a key
    /// rotated in just after the push was sent).
    public let lateKeyDelay: Duration

    /// A decryptor over `keyStore`, recording in `ledger` when given.
    public init(keyStore: any KeyStore, ledger: EventLedger? = nil, lateKeyDelay: Duration = .milliseconds(250)) {
        self.keyStore = keyStore
        self.ledger = ledger
        self.lateKeyDelay = lateKeyDelay
    }

    /// Opens `payload` (the notification's `userInfo`) and returns the content to deliver.
    /// - Parameters:
    ///   - payload: the notification's payload as it arrived.
    ///   - deadline: when the work must be done; the late-key retry is skipped if it would pass
    ///     the deadline.
    public func open(_ payload: JSONObject, deadline: ContinuousClock.Instant? = nil) -> DecryptionResult {
        let result = process(payload, deadline: deadline)
        if let ledger {
            let outcome = result.reason?.rawValue ?? result.status.rawValue
            try? ledger.countOutcome(result.duplicate ? "duplicate" : outcome)
        }
        return result
    }

    private func process(_ payload: JSONObject, deadline: ContinuousClock.Instant?) -> DecryptionResult {
        guard let text = payload["enc"]?.stringValue else { return .asArrived(payload, reason: nil) }
        do {
            let envelope = try Envelope(base64URL: text)
            let opened: OpenedEnvelope
            do {
                opened = try envelope.open(with: try loadRing())
            } catch let error as PushSealError where error.code == .unknownKey && hasTimeForLateKey(deadline) {
                sleep(lateKeyDelay)
                opened = try envelope.open(with: try loadRing())
            }
            return .decrypted(opened, duplicate: isDuplicate(opened.content))
        } catch let error as PushSealError {
            return .asArrived(payload, reason: error.code)
        } catch {
            return .asArrived(payload, reason: .keyStoreUnavailable)
        }
    }

    private func loadRing() throws -> KeyRing {
        do {
            return try keyStore.loadKeyRing()
        } catch let error as PushSealError where error.code == .keyStoreUnavailable {
            throw error
        } catch {
            throw PushSealError(.keyStoreUnavailable, "the key store could not be read: \(error)")
        }
    }

    /// Records the content's `event_id`; true when it was already there. A ledger that cannot
    /// be written never blocks delivery.
    private func isDuplicate(_ content: JSONObject) -> Bool {
        guard let ledger, let eventID = Self.eventID(content) else { return false }
        return (try? ledger.record(eventID: eventID)) == .duplicate
    }

    /// `event_id` as text: a string, or a number's literal.
    static func eventID(_ content: JSONObject) -> String? {
        switch content["event_id"] {
        case .string(let text)?: text.isEmpty ? nil : text
        case .number(let number)?: number.literal
        default: nil
        }
    }

    private func hasTimeForLateKey(_ deadline: ContinuousClock.Instant?) -> Bool {
        guard let deadline else { return true }
        return ContinuousClock.now.advanced(by: lateKeyDelay * 2) < deadline
    }

    private func sleep(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let microseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        if microseconds > 0 { usleep(useconds_t(clamping: microseconds)) }
    }
}
