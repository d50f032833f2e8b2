internal import PushSealPrimitives

extension HPKE.KEM {
    /// The shared secret of the KEM and `enc`, the serialised ephemeral public key.
    struct Encapsulation {
        let sharedSecret: SecretBytes
        let enc: [UInt8]
    }

    private var kdf: HPKE.LabeledKDF { HPKE.LabeledKDF(suiteIdentifier: identifier) }

    /// `Encap` (sender is nil) or `AuthEncap` of RFC 9180 §4.1. The ephemeral key is fresh unless
    /// given, which only known-answer tests do. With `agreements`, the sender's static
    /// Diffie-Hellman with the recipient is taken from there (and kept there when new).
    func encapsulate(
        to recipient: HPKE.PublicKey, sender: HPKE.PrivateKey?, ephemeral: HPKE.PrivateKey?,
        agreements: HPKE.SenderAgreements? = nil
    ) throws -> Encapsulation {
        let ephemeral = try ephemeral ?? HPKE.PrivateKey.generate(self)
        let enc = ephemeral.publicKey.serialized
        let dh = try ephemeral.agree(with: recipient)
        var context = enc + recipient.serialized
        guard let sender else {
            return Encapsulation(sharedSecret: try extractAndExpand(dh: dh, kemContext: context), enc: enc)
        }
        context += sender.publicKey.serialized
        let staticDH = try agreements?.secret(sender: sender, recipient: recipient) ?? sender.agree(with: recipient)
        let joined = SecretBytes(concatenating: dh, staticDH)
        return Encapsulation(sharedSecret: try extractAndExpand(dh: joined, kemContext: context), enc: enc)
    }

    /// `Decap` (sender is nil) or `AuthDecap` of RFC 9180 §4.1.
    func decapsulate(enc: [UInt8], recipient: HPKE.PrivateKey, sender: HPKE.PublicKey?) throws -> SecretBytes {
        let ephemeral = try HPKE.PublicKey(kem: self, serialized: enc)
        let dh = try recipient.agree(with: ephemeral)
        var context = enc + recipient.publicKey.serialized
        guard let sender else { return try extractAndExpand(dh: dh, kemContext: context) }
        context += sender.serialized
        return try extractAndExpand(
            dh: SecretBytes(concatenating: dh, try recipient.agree(with: sender)), kemContext: context)
    }

    /// `DeriveKeyPair(ikm)` of RFC 9180 §7.1.3: X25519 takes the expanded bytes as the scalar;
    /// P-256 draws candidates until one lies in [1, n).
    package func deriveKeyPair(ikm: [UInt8]) throws -> HPKE.PrivateKey {
        let prk = try kdf.extract(salt: [UInt8](), label: "dkp_prk", ikm: ikm)
        switch self {
        case .x25519:
            let scalar = try kdf.expand(prk: prk, label: "sk", info: [UInt8](), length: X25519.keyByteCount)
            return .x25519(try X25519.PrivateKey(rawRepresentation: scalar))
        case .p256:
            for counter in 0...UInt8.max {
                let candidate = try kdf.expand(prk: prk, label: "candidate", info: [counter], length: 32)
                if let key = try? P256.PrivateKey(rawRepresentation: candidate) { return .p256(key) }
            }
            throw CryptoFailure.invalidKey("DeriveKeyPair found no valid P-256 scalar")
        }
    }

    /// `ExtractAndExpand(dh, kem_context)`; in auth mode `dh` is both DH outputs, concatenated.
    private func extractAndExpand(dh: SecretBytes, kemContext: [UInt8]) throws -> SecretBytes {
        let prk = try kdf.extract(salt: [UInt8](), label: "eae_prk", ikm: dh)
        return try kdf.expand(prk: prk, label: "shared_secret", info: kemContext, length: 32)
    }
}
