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
/// opened degrades to the notification exactly as it arrived, with a named reason, or, under a
/// policy that requires sealed payloads, to the policy's neutral text alone.
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
    /// The payload contract that decrypted content is routed under; nil routes nothing.
    public let contract: PayloadContract?
    /// Fetches the `media` of decrypted content; nil attaches nothing.
    public let media: MediaFetcher?
    /// Fetches the content that decrypted content refers to when it was too large for the push
    /// (envelope-v1.md, "Fetched content").
    public let fetcher: ContentFetcher
    /// What a forwarded Web Push message's content becomes: `WebPushContent.standard`
    /// unless the app maps its sender's content itself (webpush-v1.md, "Forwarded to an iPhone").
    public let webPushMapping: WebPushContent.Mapping
    /// The policy the app fixes in code; nil reads the store's `policy` for each payload.
    ///
    /// An app that requires sealed payloads should fix the policy here: a store file that cannot
    /// be read, or that was replaced, can then not switch it off.
    public let policy: StorePolicy?

    /// A decryptor over `keyStore`, recording in `ledger`, routing under `contract`, fetching
    /// media with `media` and referenced content with `fetcher`, under `policy` instead of the
    /// store's, when given, and showing forwarded Web Push content as `webPushMapping` says.
    public init(
        keyStore: any KeyStore, ledger: EventLedger? = nil, contract: PayloadContract? = nil,
        media: MediaFetcher? = nil, fetcher: ContentFetcher = ContentFetcher(), policy: StorePolicy? = nil,
        lateKeyDelay: Duration = .milliseconds(250),
        webPushMapping: @escaping WebPushContent.Mapping = WebPushContent.standard
    ) {
        self.webPushMapping = webPushMapping
        self.fetcher = fetcher
        self.keyStore = keyStore
        self.ledger = ledger
        self.contract = contract
        self.media = media
        self.policy = policy
        self.lateKeyDelay = lateKeyDelay
    }

    /// Opens `payload` (the notification's `userInfo`), records it in the ledger, and returns the
    /// content to deliver: ``prepare(_:deadline:)`` then ``record(_:)``, for a caller that shows
    /// whatever it gets (the CLI).
    /// - Parameters:
    ///   - payload: the notification's payload as it arrived.
    ///   - deadline: when the work must be done; the late-key retry is skipped if it would pass
    ///     the deadline.
    public func open(_ payload: JSONObject, deadline: ContinuousClock.Instant? = nil) -> DecryptionResult {
        record(attachMedia(to: prepare(payload, deadline: deadline), deadline: deadline))
    }

    /// The margin kept before a deadline when fetching media, so that the text is still
    /// delivered in time.
    public static let mediaMargin: Duration = .seconds(2)

    /// Fetches the `media` of decrypted content: the result with its attachment, or with the
    /// reason it has none (the text is shown either way). Anything else is returned as it is.
    /// - Parameters:
    ///   - result: a result of ``prepare(_:deadline:)``.
    ///   - deadline: the work's deadline; the download gets until ``mediaMargin`` before it
    ///     (30 seconds when nil).
    ///   - cancelled: polled during the download; true stops it.
    public func attachMedia(
        to result: DecryptionResult, deadline: ContinuousClock.Instant?, cancelled: @escaping () -> Bool = { false }
    ) -> DecryptionResult {
        guard let media, result.status == .decrypted, let value = result.notification.userInfo["media"] else {
            return result
        }
        var attached = result
        do {
            guard let object = value.objectValue else {
                throw MediaFailure(.integrity, "$.media must be a descriptor object")
            }
            let descriptor = try MediaDescriptor(json: object)
            let until = (deadline ?? ContinuousClock.now.advanced(by: .seconds(30))).advanced(
                by: .zero - Self.mediaMargin)
            switch media.fetch(descriptor, deadline: until, cancelled: cancelled) {
            case .success(let attachment): attached.attachment = attachment
            case .failure(let failure): attached.mediaFailure = failure
            }
        } catch let failure as MediaFailure {
            attached.mediaFailure = failure
        } catch {
            attached.mediaFailure = MediaFailure(.integrity, "\(error)")
        }
        return attached
    }

    /// Opens `payload` without writing anything: the result's `duplicate` is not known yet.
    /// Call ``record(_:)`` once the result is sure to be shown. Content that refers to content to
    /// fetch is fetched here, until ``mediaMargin`` before `deadline`.
    public func prepare(_ payload: JSONObject, deadline: ContinuousClock.Instant? = nil) -> DecryptionResult {
        guard let text = payload["enc"]?.stringValue else {
            do {
                guard let message = try ForwardedWebPush.message(in: payload) else {
                    return unopened(payload, reason: .notSealed)
                }
                return openForwarded(message.bytes, coding: message.coding, payload)
            } catch {
                return unopened(payload, reason: error.code)
            }
        }
        var displayTicket: ReceiptTicket?
        do {
            let envelope = try Envelope(base64URL: text)
            let opened: OpenedEnvelope
            do {
                opened = try envelope.open(with: try loadRing())
            } catch let error as PushSealError where error.code == .unknownKey && hasTimeForLateKey(deadline) {
                sleep(lateKeyDelay)
                opened = try envelope.open(with: try loadRing())
            }
            if let reference = try FetchReference.reference(in: opened.content) {
                // The reference's content carries the display ticket: a fetch that fails reports
                // with it, as the device did open this delivery.
                displayTicket = try? ReceiptTicket.ticket(in: opened.content)
                return withTicket(try openFetched(reference, payload, deadline: deadline), displayTicket)
            }
            return decrypted(opened)
        } catch let error as PushSealError {
            return withTicket(unopened(payload, reason: error.code), displayTicket)
        } catch {
            return withTicket(unopened(payload, reason: .keyStoreUnavailable), displayTicket)
        }
    }

    /// `result`, reporting with `ticket` when there is one (the display ticket of content that
    /// opened before a later step failed).
    private func withTicket(_ result: DecryptionResult, _ ticket: ReceiptTicket?) -> DecryptionResult {
        var result = result
        if let ticket { result.receipt = ticket }
        return result
    }

    /// The result of an envelope that opened, routed under the contract.
    private func decrypted(_ opened: OpenedEnvelope) -> DecryptionResult {
        var result = DecryptionResult.decrypted(opened)
        if let contract { result.route = PushRoute(content: opened.content, contract: contract) }
        return result
    }

    /// Fetches what `reference` names, until ``mediaMargin`` before `deadline`, and opens it by
    /// its format: a Web Push message as a forwarded one, an envelope with the store's keys (its
    /// content may not refer again: `malformed-content`).
    /// - Throws: ``PushSealError`` with the reason to degrade with.
    private func openFetched(_ reference: FetchReference, _ payload: JSONObject, deadline: ContinuousClock.Instant?)
        throws -> DecryptionResult
    {
        let until = (deadline ?? ContinuousClock.now.advanced(by: .seconds(30))).advanced(by: .zero - Self.mediaMargin)
        let content = try fetcher.fetch(reference, deadline: until)
        var result: DecryptionResult
        switch reference.format {
        case .webPush:
            result = openForwarded(content, coding: .aes128gcm, payload)
        case .webPushAESGCM:
            result = openForwarded(content, coding: .aesgcm, payload)
        case .envelope:
            let opened = try Envelope(bytes: content).open(with: try loadRing())
            guard opened.content[FetchReference.member] == nil else {
                throw PushSealError(.malformedContent, "fetched content refers to content to fetch again")
            }
            result = decrypted(opened)
        }
        if result.status == .decrypted { result.fetched = true }
        return result
    }

    /// Opens a forwarded Web Push message of `coding` (for `aesgcm`, its frame) with the store's
    /// receivers (the current one first) and maps its content with ``webPushMapping``: a message
    /// that no receiver opens is `decryption-failed`, one whose header or record is malformed
    /// `malformed-envelope`, bad padding or content nothing can show `malformed-content`, a store
    /// without a receiver `unknown-key`.
    private func openForwarded(_ message: [UInt8], coding: WebPushCoding, _ payload: JSONObject) -> DecryptionResult {
        let receivers: [WebPushReceiver]
        do {
            receivers = try keyStore.loadWebPushReceivers()
        } catch let error as PushSealError {
            return unopened(payload, reason: error.code)
        } catch {
            return unopened(payload, reason: .keyStoreUnavailable)
        }
        guard !receivers.isEmpty else { return unopened(payload, reason: .unknownKey) }
        for receiver in receivers {
            var content: [UInt8]
            let messageID: String
            do {
                (content, messageID) = try coding.open(message, with: receiver)
            } catch  where error.reason == .decryptionFailed {
                continue
            } catch {
                return unopened(payload, reason: Self.reason(error))
            }
            defer { SecureMemory.wipe(&content) }
            guard let mapped = webPushMapping(content) else { return unopened(payload, reason: .malformedContent) }
            // Apart from the backend's members; the contract's routes are the backend's, and a
            // relayed message takes none.
            return .decryptedWebPush(
                RelayedContent(mapped: mapped, endpoint: ForwardedWebPush.endpoint(in: payload)),
                receiver: receiver.kid, messageID: messageID)
        }
        return unopened(payload, reason: .decryptionFailed)
    }

    /// The reason of a forwarded message that does not open for `error`'s cause.
    static func reason(_ error: WebPushError) -> PushSealError.Code {
        switch error.reason {
        case .decryptionFailed, .invalidSenderKey: .decryptionFailed
        case .missingDelimiter, .misplacedDelimiter, .nonZeroPadding, .paddingTooLong: .malformedContent
        default: .malformedEnvelope
        }
    }

    /// What is shown for a payload that did not open, for `reason` (`timeout` included).
    ///
    /// Under a policy that requires sealed payloads (``policy``, else the store's), the policy's
    /// neutral text and nothing else of the payload, whatever the reason: neither the alert, nor
    /// the backend's placeholder, nor any other member. Otherwise the payload exactly as it
    /// arrived, degraded with `reason`; for `not-sealed`, an unsealed payload passes as `plain`.
    /// A store that cannot be read imposes no policy of its own.
    public func unopened(_ payload: JSONObject, reason: PushSealError.Code) -> DecryptionResult {
        if let policy = policy ?? (try? keyStore.loadPolicy()), policy.requireSealed {
            var result = DecryptionResult.neutral(policy, reason: reason)
            result.receipt = try? ReceiptTicket.ticket(in: payload)
            return result
        }
        return .asArrived(payload, reason: reason == .notSealed ? nil : reason)
    }

    /// Records a result that is being shown: the `event_id` of decrypted content and the identity
    /// of a forwarded Web Push message (either one seen before sets `duplicate`: a repeat, or a
    /// replay), and the outcome counter (`duplicate` for either). A ledger that cannot be written
    /// never blocks delivery.
    public func record(_ result: DecryptionResult) -> DecryptionResult {
        guard let ledger else { return result }
        var recorded = result
        if result.status == .decrypted {
            if let messageID = result.webPushMessageID {
                recorded.duplicate = (try? ledger.record(messageID: messageID)) == .duplicate
            }
            // A relayed message's event id is its sender's, scoped by its endpoint; never read
            // where the backend's is.
            let eventID =
                result.webPushMessageID == nil ? Self.eventID(result.notification.userInfo) : result.relayedEventID
            if let eventID, (try? ledger.record(eventID: eventID)) == .duplicate {
                recorded.duplicate = true
            }
        }
        let outcome = recorded.reason?.rawValue ?? recorded.status.rawValue
        try? ledger.countOutcome(recorded.duplicate ? "duplicate" : outcome)
        return recorded
    }

    /// Counts a notification shown as it arrived because the time ran out (`timeout`); its
    /// `event_id`, if any, is not recorded, since its content was never shown.
    public func recordTimeout() {
        try? ledger?.countOutcome(PushSealError.Code.timeout.rawValue)
    }

    private func loadRing() throws -> KeyRing {
        do {
            return try keyStore.loadKeyRing()
        } catch let error as PushSealError where error.code == .keyStoreUnavailable || error.code == .keyStoreLocked {
            throw error
        } catch {
            throw PushSealError(.keyStoreUnavailable, "the key store could not be read: \(error)")
        }
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
