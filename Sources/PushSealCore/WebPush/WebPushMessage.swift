/// RFC 8291 Web Push messages: one `aes128gcm` record (RFC 8188) sealed to a subscription's
/// P-256 key and authentication secret, and opened with the receiver's private key.
///
/// A message is the 86-byte header (salt, record size 4096, the sender's ephemeral public key)
/// followed by one record: `content || 0x02 || 0x00…` encrypted with AES-128-GCM. The padding
/// rounds the record's plaintext up to a multiple of ``defaultPaddingBlock`` bytes, never past
/// what a 4,096-byte message holds, so that the length of a message reveals the length of its
/// content only to within a block (webpush-v1.md, "Padding").
public enum WebPushMessage {
    /// The largest message a push service must accept (RFC 8030 §7.2, RFC 8291 §4).
    public static let maximumByteCount = 4096
    /// The record size written in every header.
    public static let recordSize: UInt32 = 4096
    /// The largest record plaintext (content, delimiter and padding) a 4,096-byte message holds.
    static let maximumRecordPlaintextByteCount =
        maximumByteCount - ContentCodingHeader.byteCount - tagByteCount
    /// The largest content: 4,096 bytes less the header, the tag and the delimiter, 3,993 bytes.
    public static let maximumContentByteCount = maximumRecordPlaintextByteCount - 1
    /// The padding block: a record's plaintext is a multiple of 128 bytes, or the largest one.
    public static let defaultPaddingBlock = 128
    /// The AES-GCM tag's length.
    static let tagByteCount = 16
    /// The delimiter of the last (here, the only) record.
    static let lastRecordDelimiter: UInt8 = 0x02
    /// The delimiter of a record that is not the last.
    static let otherRecordDelimiter: UInt8 = 0x01
}
