public import PushSealCore

/// The result of sealing: the outer payload to hand to APNs.
public struct SealedPayload: Sendable {
    /// The outer payload as compact JSON.
    public let bytes: [UInt8]
    /// The envelope inside it.
    public let envelope: Envelope
    /// True when the alert body was shortened to fit (``OverflowPolicy/truncateBody``).
    public let bodyTruncated: Bool

    /// The outer payload's size in bytes, as APNs counts it.
    public var byteCount: Int { bytes.count }

    /// The outer payload as a string.
    public var json: String { String(decoding: bytes, as: UTF8.self) }
}
