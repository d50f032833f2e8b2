internal import PushSealPrimitives
internal import PushSealURL

extension WebPushMessage {
    /// Seals `content` for `subscription` under a fresh ephemeral key and salt.
    ///
    /// - Parameters:
    ///   - content: the bytes the receiver gets back (for a browser, usually JSON text).
    ///   - subscription: the receiver's subscription.
    ///   - paddingBlock: the record's plaintext is rounded up to a multiple of this many bytes,
    ///     never past what a 4,096-byte message holds; 1 pads with the delimiter alone.
    /// - Returns: the message body, to be sent with `Content-Encoding: aes128gcm`.
    /// - Throws: ``WebPushError/Reason/messageTooLarge`` when `content` exceeds
    ///   ``maximumContentByteCount``.
    public static func seal(
        _ content: some Collection<UInt8>, for subscription: WebPushSubscription,
        paddingBlock: Int = defaultPaddingBlock
    ) throws(WebPushError) -> [UInt8] {
        guard
            let length = Padding.paddedLength(
                contentCount: content.count, block: paddingBlock, maximum: maximumRecordPlaintextByteCount)
        else {
            throw tooLarge(content.count)
        }
        return try seal(content, for: subscription, recordPlaintextCount: length, sender: nil, salt: nil)
    }

    /// As ``seal(_:for:paddingBlock:)``, with the record's plaintext length, the ephemeral key and
    /// the salt given (known-answer and interoperability tests only). `recordPlaintextCount`
    /// counts the content, the delimiter and the zeros after it.
    package static func seal(
        _ content: some Collection<UInt8>, for subscription: WebPushSubscription, recordPlaintextCount: Int,
        sender: PrivateKey?, salt: [UInt8]?
    ) throws(WebPushError) -> [UInt8] {
        var senderPair: P256.PrivateKey?
        if let sender {
            guard case .pair(.p256(let pair)) = sender.material else {
                throw WebPushError(.cryptoFailure, "a Web Push sender key is a P-256 pair, not \(sender.suite.name)")
            }
            senderPair = pair
        }
        guard content.count <= maximumContentByteCount else { throw tooLarge(content.count) }
        guard recordPlaintextCount > content.count, recordPlaintextCount <= maximumRecordPlaintextByteCount else {
            throw WebPushError(
                .messageTooLarge,
                "a record of \(recordPlaintextCount) bytes cannot hold \(content.count) bytes and the delimiter "
                    + "within \(maximumByteCount) bytes")
        }
        var record = [UInt8]()
        record.reserveCapacity(recordPlaintextCount)
        record.append(contentsOf: content)
        record.append(lastRecordDelimiter)
        record.append(contentsOf: repeatElement(0, count: recordPlaintextCount - record.count))
        defer { wipe(&record) }
        do {
            let sender = try senderPair ?? P256.PrivateKey()
            let header = ContentCodingHeader(
                salt: salt ?? SecureRandom.bytes(ContentCodingHeader.saltByteCount), recordSize: recordSize,
                senderKey: sender.publicKey)
            let schedule = try WebPushKeySchedule(
                .aes128gcm,
                ecdhSecret: try sender.sharedSecret(with: subscription.receiverKey),
                authSecret: subscription.authSecret, receiverKey: subscription.receiverKey,
                senderKey: sender.publicKey, salt: header.salt)
            let sealed = try AEAD.aes128GCM.seal(
                key: schedule.contentKey, nonce: schedule.nonce, aad: [UInt8](), plaintext: record)
            return header.bytes + sealed
        } catch {
            throw WebPushError(.cryptoFailure, "sealing for \(subscription.endpointURL.authority) failed: \(error)")
        }
    }

    private static func tooLarge(_ count: Int) -> WebPushError {
        WebPushError(
            .messageTooLarge,
            "the content holds \(count) bytes; one record of a \(maximumByteCount)-byte message holds at most "
                + "\(maximumContentByteCount)")
    }
}
