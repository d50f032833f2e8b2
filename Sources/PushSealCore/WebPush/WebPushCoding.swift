/// The content coding of a Web Push message a relay forwards (webpush-v1.md, "Forwarded to an
/// iPhone"): which member of the APNs payload carries it, which format names it when it is
/// fetched, and how a receiver opens it.
public enum WebPushCoding: String, Sendable, CaseIterable {
    /// RFC 8291's coding: the message is self-contained, header and record.
    case aes128gcm
    /// The legacy coding of draft-ietf-webpush-encryption-04: the message is forwarded as its
    /// frame (``AESGCMMessage``), the salt and the sender's key from its headers in front of the
    /// record.
    case aesgcm

    /// The forwarded payload's member that carries a message of this coding.
    public var payloadMember: String {
        switch self {
        case .aes128gcm: ForwardedWebPush.member
        case .aesgcm: ForwardedWebPush.aesgcmMember
        }
    }

    /// The format of a reference to such a message kept to fetch.
    public var fetchFormat: FetchReference.Format {
        switch self {
        case .aes128gcm: .webPush
        case .aesgcm: .webPushAESGCM
        }
    }

    /// The largest forwarded bytes of this coding: the message, or the legacy message's frame.
    public var maximumByteCount: Int {
        switch self {
        case .aes128gcm: WebPushMessage.maximumByteCount
        case .aesgcm: AESGCMMessage.maximumFrameByteCount
        }
    }

    /// Opens `forwarded` (a message, or a legacy frame) with `receiver`.
    /// - Returns: the content and the message's identity for the replay ledger.
    /// - Throws: ``WebPushError``, as ``WebPushMessage/open(_:with:)`` and
    ///   ``AESGCMMessage/open(with:)`` throw.
    public func open(_ forwarded: [UInt8], with receiver: WebPushReceiver) throws(WebPushError)
        -> (content: [UInt8], identity: String)
    {
        switch self {
        case .aes128gcm:
            let content = try WebPushMessage.open(forwarded, with: receiver)
            return (content, try WebPushMessage.replayIdentity(forwarded))
        case .aesgcm:
            let message = try AESGCMMessage(frame: forwarded)
            return (try message.open(with: receiver), message.replayIdentity)
        }
    }
}
