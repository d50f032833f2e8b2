internal import PushSealPrimitives

extension WebPushMessage {
    /// The length of a Web Push message's `aes128gcm` header: salt, record size, key id length
    /// and the sender's 65-byte public key.
    public static let headerByteCount = ContentCodingHeader.byteCount

    /// Checks that `body` starts with a well-formed header (a record size RFC 8188 allows, a key
    /// id that is a point on P-256) and holds at least one tag's worth of record after it: what a
    /// push service can check of a message it cannot open.
    /// - Throws: ``WebPushError`` with `malformed-header`, `invalid-record-size`,
    ///   `invalid-sender-key`, or `decryption-failed` for a record shorter than its tag.
    public static func checkHeader(_ body: [UInt8]) throws(WebPushError) {
        _ = try ContentCodingHeader(parsing: body[...])
        guard body.count >= ContentCodingHeader.byteCount + tagByteCount else {
            throw WebPushError(.decryptionFailed, "no record of at least 16 bytes follows the header")
        }
    }

    /// Opens a message sealed to `receiver`: checks the header, derives the key, authenticates and
    /// decrypts the one record, and removes its delimiter and padding.
    ///
    /// Nothing is returned unless every check passes: a refused message yields no plaintext, not
    /// even part of one.
    ///
    /// - Returns: the content.
    /// - Throws: ``WebPushError`` with one of `message-too-large`, `malformed-header`,
    ///   `invalid-record-size`, `invalid-sender-key`, `multiple-records`, `decryption-failed`,
    ///   `missing-delimiter`, `misplaced-delimiter`, `nonzero-padding`.
    public static func open(_ body: some Collection<UInt8>, with receiver: WebPushReceiver) throws(WebPushError)
        -> [UInt8]
    {
        guard body.count <= maximumByteCount else {
            throw WebPushError(
                .messageTooLarge, "the message holds \(body.count) bytes; a push message holds at most 4096")
        }
        let bytes = Array(body)
        let header = try ContentCodingHeader(parsing: bytes[...])
        let record = bytes[ContentCodingHeader.byteCount...]
        guard record.count <= Int(header.recordSize) else {
            throw WebPushError(
                .multipleRecords,
                "\(record.count) bytes follow the header but the record size is \(header.recordSize): "
                    + "a Web Push message is one record")
        }
        guard record.count >= tagByteCount else {
            throw WebPushError(
                .decryptionFailed, "\(record.count) bytes follow the header; a record holds at least its 16-byte tag")
        }
        var plaintext = try WebPushKeySchedule.openRecord(
            record, .aes128gcm, with: receiver, senderKey: header.senderKey, salt: header.salt)
        do {
            let length = try contentLength(plaintext)
            plaintext.removeSubrange(length...)
            return plaintext
        } catch {
            wipe(&plaintext)
            throw error
        }
    }

    /// The length of the content in a decrypted last record: the record's last non-zero byte
    /// must be the delimiter 0x02, with only zeros after it (also the fuzz target's entry point).
    package static func contentLength(_ record: [UInt8]) throws(WebPushError) -> Int {
        guard let delimiter = record.lastIndex(where: { $0 != 0 }) else {
            throw WebPushError(.missingDelimiter, "the record holds no delimiter, only \(record.count) zero bytes")
        }
        switch record[delimiter] {
        case lastRecordDelimiter:
            return delimiter
        case otherRecordDelimiter:
            throw WebPushError(
                .misplacedDelimiter,
                "the record ends with delimiter 0x01 (at byte \(delimiter)), which marks a record that is not the last")
        default:
            guard let last = record.lastIndex(of: lastRecordDelimiter) else {
                throw WebPushError(.missingDelimiter, "the record holds no 0x02 delimiter")
            }
            throw WebPushError(
                .nonZeroPadding, "byte \(delimiter) of the record, after the delimiter at \(last), is not zero")
        }
    }
}
