internal import PushSealPrimitives

/// What opening an envelope yields: the content and what authenticated it.
public struct OpenedEnvelope: Sendable {
    /// The header that was authenticated with the content.
    public let header: EnvelopeHeader
    /// The decrypted protected payload.
    public let content: JSONObject
}

extension Envelope {
    /// Steps 2 to 4 of "Opening and rewriting" in envelope-v1.md: look up the key, apply sender
    /// pinning, open, remove the padding and parse the content as a JSON object.
    ///
    /// - Throws: ``PushSealError`` with one of `unknown-key`, `authentication-required`,
    ///   `untrusted-sender`, `decryption-failed`, `malformed-content`.
    public func open(with ring: KeyRing) throws -> OpenedEnvelope {
        guard let key = ring.deviceKey(kid: header.kid, suite: header.suite) else {
            throw PushSealError(.unknownKey, "no \(header.suite.name) key with kid \"\(header.kid)\" in the key store")
        }
        var sender: PublicKey?
        if header.mode == .auth, let skid = header.skid {
            guard let trusted = ring.trustedSender(skid: skid, suite: header.suite) else {
                throw PushSealError(.untrustedSender, "sender \"\(skid)\" is not trusted for \(header.suite.name)")
            }
            sender = trusted
        } else if ring.pinsSenders(of: header.suite) {
            throw PushSealError(
                .authenticationRequired,
                "the key store pins senders for \(header.suite.name); this envelope is base mode")
        }
        let padded = try decrypt(with: key, sender: sender)
        return OpenedEnvelope(header: header, content: try Self.parseContent(padded))
    }

    /// AEAD or HPKE decryption; every failure is `decryption-failed`, whatever its cause.
    func decrypt(with key: PrivateKey, sender: PublicKey?) throws -> [UInt8] {
        let aad = headerBytes
        do {
            switch key.material {
            case .shared(let secret):
                return try AEAD.xChaCha20Poly1305.open(key: secret, nonce: header.enc, aad: aad, ciphertext: ciphertext)
            case .pair(let pair):
                let parameters = try Profiles.parameters(header.suite, header.mode)
                var context = try HPKE.setupRecipient(
                    parameters, enc: header.enc, recipient: pair, sender: sender?.material)
                return try context.open(aad: aad, ciphertext: ciphertext)
            }
        } catch is CryptoFailure {
            throw PushSealError(.decryptionFailed, "the envelope does not open with key \"\(key.kid)\"")
        }
    }

    /// Removes the padding and parses the content, which must be a UTF-8 JSON object.
    static func parseContent(_ padded: [UInt8]) throws -> JSONObject {
        guard let length = Padding.contentLength(padded) else {
            throw PushSealError(.malformedContent, "the padding has no 0x80 marker")
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(padded[..<length])
        } catch {
            throw PushSealError(.malformedContent, "the content is not JSON: \(error)")
        }
        guard let object = value.objectValue else {
            throw PushSealError(.malformedContent, "the content is \(value.typeName), not a JSON object")
        }
        return object
    }
}
