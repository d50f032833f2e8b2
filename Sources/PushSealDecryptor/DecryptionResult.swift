public import PushSealCore

/// What the extension delivers: decrypted content, a payload that was never sealed, or the
/// notification exactly as it arrived with the reason it could not be opened.
public struct DecryptionResult: Sendable {
    /// The three outcomes of cli-v1.md.
    public enum Status: String, Sendable {
        /// The envelope opened; the content is the decrypted payload's.
        case decrypted
        /// There was no envelope; the content is the payload's as it arrived.
        case plain
        /// The envelope did not open; the content is the placeholder, as it arrived, or, under a
        /// policy that requires sealed payloads, the policy's neutral text alone.
        case degraded
    }

    /// The outcome.
    public let status: Status
    /// Why the notification degraded; nil otherwise.
    public let reason: PushSealError.Code?
    /// The authenticated header, when an envelope was decrypted.
    public let header: EnvelopeHeader?
    /// The kid of the Web Push receiver that opened a forwarded Web Push message; nil otherwise.
    public internal(set) var webPushReceiver: String?
    /// The identity of the forwarded Web Push message opened (`WebPushMessage.replayIdentity`),
    /// which ``Decryptor/record(_:)`` records to tell a replay; nil otherwise.
    var webPushMessageID: String?
    /// The ledger's key for a forwarded message's `event_id`, scoped by its relay endpoint
    /// (``RelayedContent/ledgerEventID``); nil otherwise.
    var relayedEventID: String?
    /// True when the content was fetched, as decrypted content referred to it
    /// (envelope-v1.md, "Fetched content").
    public internal(set) var fetched = false
    /// The content to show.
    public let notification: NotificationContent
    /// True when the ledger had already recorded this decrypted payload's `event_id`, or the
    /// forwarded Web Push message itself (a replay): refresh, do not navigate again. Set by
    /// ``Decryptor/record(_:)``.
    public internal(set) var duplicate: Bool
    /// Where decrypted content leads under the decryptor's contract; nil without a contract, and
    /// always nil for a payload that was not decrypted.
    public internal(set) var route: PushRoute?
    /// The decrypted content's media, fetched, checked and written; nil without one.
    public internal(set) var attachment: MediaAttachment?
    /// Why the content's media is not attached (the text is shown without it); nil otherwise.
    public internal(set) var mediaFailure: MediaFailure?
    /// The ticket to report what is shown with (envelope-v1.md, "Receipts"): the display ticket
    /// of content that opened, else the failure ticket the payload carried beside its envelope;
    /// nil when the push carries none. Never part of ``notification``'s `userInfo`.
    public internal(set) var receipt: ReceiptTicket?

    /// What a receipt reports of this result: `displayed` for content that opened, `degraded`
    /// with the reason for a payload that did not; nil for a payload that was never sealed.
    public var receiptOutcome: ReceiptOutcome? {
        switch status {
        case .decrypted: .displayed
        case .degraded: reason.flatMap { ReceiptOutcome.degradeReasons.contains($0) ? .degraded($0) : nil }
        case .plain: nil
        }
    }

    /// A decrypted result; ``Decryptor/record(_:)`` sets `duplicate`.
    /// The content's `pushseal_receipt` member is taken out into ``receipt``: the app never sees
    /// the capability.
    static func decrypted(_ opened: OpenedEnvelope) -> DecryptionResult {
        var content = opened.content
        let receipt = ReceiptTicket.taken(from: &content)
        var result = DecryptionResult(
            status: .decrypted, reason: nil, header: opened.header,
            notification: NotificationContent(payload: content), duplicate: false)
        result.receipt = receipt
        return result
    }

    /// A forwarded Web Push message `messageID` opened by the receiver `kid`, its content mapped
    /// and kept apart as `content` says.
    static func decryptedWebPush(_ content: RelayedContent, receiver kid: String, messageID: String)
        -> DecryptionResult
    {
        var result = DecryptionResult(
            status: .decrypted, reason: nil, header: nil, notification: NotificationContent(payload: content.payload),
            duplicate: false)
        result.webPushReceiver = kid
        result.webPushMessageID = messageID
        result.relayedEventID = content.ledgerEventID
        return result
    }

    /// A payload that did not open (or was not sealed) under a policy that requires sealed
    /// payloads: only the policy's neutral text is shown, with the reason.
    static func neutral(_ policy: StorePolicy, reason: PushSealError.Code) -> DecryptionResult {
        DecryptionResult(
            status: .degraded, reason: reason, header: nil,
            notification: NotificationContent(payload: policy.neutralPayload), duplicate: false)
    }

    /// The payload as it arrived, with `reason` when it degraded.
    /// The failure ticket beside the envelope is taken out of what is shown into ``receipt``.
    static func asArrived(_ payload: JSONObject, reason: PushSealError.Code?) -> DecryptionResult {
        var shown = payload
        let receipt = ReceiptTicket.taken(from: &shown)
        var result = DecryptionResult(
            status: reason == nil ? .plain : .degraded, reason: reason, header: nil,
            notification: NotificationContent(payload: shown), duplicate: false)
        result.receipt = receipt
        return result
    }

    /// The CLI's output object: status, reason or kid/suite/mode, duplicate, notification.
    public var json: JSONObject {
        var object = JSONObject()
        object["status"] = .string(status.rawValue)
        if let reason { object["reason"] = .string(reason.rawValue) }
        if let header {
            object["kid"] = .string(header.kid)
            object["suite"] = .string(header.suite.name)
            object["mode"] = .string(header.mode.description)
            if let skid = header.skid { object["skid"] = .string(skid) }
        }
        if let webPushReceiver {
            object["format"] = .string("webpush")
            object["kid"] = .string(webPushReceiver)
        }
        if fetched { object["fetched"] = .bool(true) }
        object["duplicate"] = .bool(duplicate)
        switch route {
        case .route(let route)?: object["route"] = .object(route.json)
        case .error(let error)?:
            object["route-error"] = .string(error.code.rawValue)
            object["route-error-detail"] = .string(error.description)
        case nil: break
        }
        if let attachment { object["attachment"] = .object(attachment.json) }
        if let mediaFailure {
            object["media-error"] = .string(mediaFailure.reason.rawValue)
            object["media-error-detail"] = .string(mediaFailure.detail)
        }
        object["notification"] = .object(notification.json)
        return object
    }
}
