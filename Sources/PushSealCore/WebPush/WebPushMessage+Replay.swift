internal import PushSealPrimitives

extension WebPushMessage {
    /// What identifies a message among those a receiver opened, for a ledger that tells a
    /// replayed message from a new one (webpush-v1.md, "Replays"): base64url, without padding, of
    /// SHA-256 over the header's salt and the sender's ephemeral key, 43 characters.
    ///
    /// RFC 8291 has no replay protection, and a captured message opens again byte for byte. The
    /// salt and the sender's key are what the content key and nonce are derived from, so another
    /// message cannot keep them and still open, while a replay must; the record size, which a
    /// one-record message opens under whatever its value, is left out, so that rewriting it does
    /// not make a replay look new. A sender draws both afresh for every message (RFC 8291 §3.4):
    /// two messages with the same identity are one message sent twice.
    ///
    /// - Throws: ``WebPushError`` for a header that does not parse, as ``open(_:with:)`` would.
    public static func replayIdentity(_ body: some Collection<UInt8>) throws(WebPushError) -> String {
        let header = try ContentCodingHeader(parsing: Array(body.prefix(ContentCodingHeader.byteCount))[...])
        return replayIdentity(salt: header.salt, senderKey: header.senderKey)
    }

    /// The identity of a message with `salt` and `senderKey`, whichever coding carried them.
    static func replayIdentity(salt: [UInt8], senderKey: P256.PublicKey) -> String {
        Base64URL.encode(SHA256.hash(salt + senderKey.x963Representation))
    }
}
