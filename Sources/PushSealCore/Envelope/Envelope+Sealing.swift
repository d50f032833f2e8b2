internal import PushSealPrimitives

extension Envelope {
    /// HPKE parameters for PushSeal's `info`, computed once per suite and mode.
    enum Profiles {
        static let info = Array("pushseal v1".utf8)
        static let x25519Base = try? HPKE.Parameters(suite: .x25519ChaChaPoly, mode: .base, info: info)
        static let x25519Auth = try? HPKE.Parameters(suite: .x25519ChaChaPoly, mode: .auth, info: info)
        static let p256Base = try? HPKE.Parameters(suite: .p256AESGCM256, mode: .base, info: info)
        static let p256Auth = try? HPKE.Parameters(suite: .p256AESGCM256, mode: .auth, info: info)

        static func parameters(_ suite: EnvelopeSuite, _ mode: EnvelopeMode) throws -> HPKE.Parameters {
            let parameters =
                switch (suite == .x25519, mode == .auth) {
                case (true, false): x25519Base
                case (true, true): x25519Auth
                case (false, false): p256Base
                case (false, true): p256Auth
                }
            guard let parameters else {
                throw PushSealError(.decryptionFailed, "the crypto library could not set up HPKE")
            }
            return parameters
        }
    }

    /// Seals an already padded plaintext for `recipient`; with `sender`, in HPKE auth mode.
    ///
    /// - Parameters:
    ///   - padded: the padded content (see ``Padding``).
    ///   - recipient: the device's public key, or the shared key.
    ///   - sender: the sender's private key (HPKE suites only), of the recipient's suite.
    /// - Throws: ``PushSealError/Code/invalidKey`` when the sender does not fit the recipient.
    public static func seal(padded: [UInt8], for recipient: Recipient, sender: PrivateKey? = nil) throws -> Envelope {
        try seal(padded: padded, for: recipient, sender: sender, ephemeral: nil, nonce: nil)
    }

    /// As ``seal(padded:for:sender:)``, with the ephemeral key or nonce injected (known-answer tests
    /// only), and in auth mode the sender's static Diffie-Hellman with the recipient kept in
    /// `agreements` (a sealer that seals for the same devices again and again).
    package static func seal(
        padded: [UInt8], for recipient: Recipient, sender: PrivateKey?, ephemeral: HPKE.PrivateKey?,
        nonce: [UInt8]?, agreements: HPKE.SenderAgreements? = nil
    ) throws -> Envelope {
        switch recipient {
        case .sharedKey(let key):
            guard sender == nil else {
                throw PushSealError(.invalidKey, "suite 0x03 has no auth mode: a shared key cannot take --sender")
            }
            guard case .shared(let secret) = key.material else {
                throw PushSealError(.invalidKey, "the recipient's shared key holds no secret")
            }
            let nonce = nonce ?? SecureRandom.bytes(AEAD.xChaCha20Poly1305.nonceByteCount)
            let header = EnvelopeHeader(suite: .xChaCha, mode: .base, kid: key.kid, skid: nil, enc: nonce)
            let headerBytes = header.bytes
            let sealed = try wrapCryptoFailure {
                try AEAD.xChaCha20Poly1305.seal(key: secret, nonce: nonce, aad: headerBytes, plaintext: padded)
            }
            return Envelope(header: header, headerBytes: headerBytes, ciphertext: sealed)

        case .publicKey(let key):
            var senderPair: HPKE.PrivateKey?
            if let sender {
                guard sender.suite == key.suite, case .pair(let pair) = sender.material else {
                    throw PushSealError(
                        .invalidKey,
                        "the sender key (\(sender.suite.name)) must be of the recipient's suite "
                            + "(\(key.suite.name))")
                }
                senderPair = pair
            }
            let mode: EnvelopeMode = sender == nil ? .base : .auth
            let parameters = try Profiles.parameters(key.suite, mode)
            return try wrapCryptoFailure {
                var (enc, context) = try HPKE.setupSender(
                    parameters, recipient: key.material, sender: senderPair, ephemeral: ephemeral,
                    agreements: agreements)
                let header = EnvelopeHeader(suite: key.suite, mode: mode, kid: key.kid, skid: sender?.kid, enc: enc)
                let headerBytes = header.bytes
                let sealed = try context.seal(aad: headerBytes, plaintext: padded)
                return Envelope(header: header, headerBytes: headerBytes, ciphertext: sealed)
            }
        }
    }

    /// Turns a primitive's failure into a ``PushSealError``; while sealing, only a low-order or
    /// invalid recipient key can cause one.
    private static func wrapCryptoFailure<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let failure as CryptoFailure {
            throw PushSealError(.invalidKey, "sealing failed: \(failure)")
        }
    }
}
