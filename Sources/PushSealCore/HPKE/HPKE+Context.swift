package import PushSealPrimitives

extension HPKE {
    /// What the key schedule needs besides the shared secret: suite, mode and `info`.
    ///
    /// `key_schedule_context` depends on nothing else, so it is computed once here and reused for
    /// every message (PushSeal's `info` never changes), saving two HKDF-Extract calls per message.
    package struct Parameters: Sendable {
        /// The cipher suite.
        package let suite: CipherSuite
        /// Base or auth.
        package let mode: Mode
        /// `mode || psk_id_hash || info_hash`.
        package let keyScheduleContext: [UInt8]

        /// Computes the key schedule context for `suite`, `mode` and `info` (no PSK).
        package init(suite: CipherSuite, mode: Mode, info: [UInt8]) throws {
            let kdf = LabeledKDF(suiteIdentifier: suite.identifier)
            let pskIDHash = try kdf.extract(salt: [UInt8](), label: "psk_id_hash", ikm: [UInt8]())
            let infoHash = try kdf.extract(salt: [UInt8](), label: "info_hash", ikm: info)
            var context = [mode.rawValue]
            pskIDHash.withUnsafeBytes { context.append(contentsOf: $0) }
            infoHash.withUnsafeBytes { context.append(contentsOf: $0) }
            self.suite = suite
            self.mode = mode
            self.keyScheduleContext = context
        }
    }

    /// An HPKE encryption context after `SetupS` or `SetupR` (RFC 9180 §5.2).
    package struct Context {
        /// The AEAD key.
        package let key: SecretBytes
        /// The base nonce, XORed with the sequence number for each message.
        package let baseNonce: [UInt8]
        /// The key schedule's `secret`, from which the exporter secret is derived on demand.
        private let secret: SecretBytes
        private let parameters: Parameters
        private var sequenceNumber: UInt64 = 0

        /// `KeySchedule(mode, shared_secret, info, "", "")`.
        init(parameters: Parameters, sharedSecret: SecretBytes) throws {
            let kdf = LabeledKDF(suiteIdentifier: parameters.suite.identifier)
            let aead = parameters.suite.aead
            let context = parameters.keyScheduleContext
            secret = try kdf.extract(salt: sharedSecret, label: "secret", ikm: [UInt8]())
            key = try kdf.expand(prk: secret, label: "key", info: context, length: aead.keyByteCount)
            let nonce = try kdf.expand(prk: secret, label: "base_nonce", info: context, length: aead.nonceByteCount)
            baseNonce = nonce.withUnsafeBytes { Array($0) }
            self.parameters = parameters
        }

        /// `exporter_secret`.
        package func exporterSecret() throws -> SecretBytes {
            try LabeledKDF(suiteIdentifier: parameters.suite.identifier)
                .expand(prk: secret, label: "exp", info: parameters.keyScheduleContext, length: HKDF.hashByteCount)
        }

        /// `Context.Export(exporter_context, L)`.
        package func export(context: [UInt8], length: Int) throws -> SecretBytes {
            try LabeledKDF(suiteIdentifier: parameters.suite.identifier)
                .expand(prk: try exporterSecret(), label: "sec", info: context, length: length)
        }

        /// `Context.Seal(aad, pt)`, then the sequence number advances.
        package mutating func seal(aad: some ContiguousBytes, plaintext: some ContiguousBytes) throws -> [UInt8] {
            let sealed = try parameters.suite.aead.seal(key: key, nonce: nonce(), aad: aad, plaintext: plaintext)
            sequenceNumber += 1
            return sealed
        }

        /// `Context.Open(aad, ct)`, then the sequence number advances.
        package mutating func open(aad: some ContiguousBytes, ciphertext: some ContiguousBytes) throws -> [UInt8] {
            let opened = try parameters.suite.aead.open(key: key, nonce: nonce(), aad: aad, ciphertext: ciphertext)
            sequenceNumber += 1
            return opened
        }

        /// `ComputeNonce(seq)`: the base nonce XOR the big-endian sequence number.
        private func nonce() -> [UInt8] {
            var nonce = baseNonce
            var sequence = sequenceNumber
            var index = nonce.count - 1
            while sequence > 0, index >= 0 {
                nonce[index] ^= UInt8(sequence & 0xFF)
                sequence >>= 8
                index -= 1
            }
            return nonce
        }
    }

    /// `SetupBaseS` (no sender) or `SetupAuthS`. Returns `enc` and the sender's context. With
    /// `agreements`, auth mode's static Diffie-Hellman is kept there for the next setup.
    package static func setupSender(
        _ parameters: Parameters, recipient: PublicKey, sender: PrivateKey? = nil, ephemeral: PrivateKey? = nil,
        agreements: SenderAgreements? = nil
    ) throws -> (enc: [UInt8], context: Context) {
        let encapsulation = try parameters.suite.kem.encapsulate(
            to: recipient, sender: sender, ephemeral: ephemeral, agreements: agreements)
        return (encapsulation.enc, try Context(parameters: parameters, sharedSecret: encapsulation.sharedSecret))
    }

    /// `SetupBaseR` (no sender) or `SetupAuthR`.
    package static func setupRecipient(
        _ parameters: Parameters, enc: [UInt8], recipient: PrivateKey, sender: PublicKey? = nil
    ) throws -> Context {
        let sharedSecret = try parameters.suite.kem.decapsulate(enc: enc, recipient: recipient, sender: sender)
        return try Context(parameters: parameters, sharedSecret: sharedSecret)
    }
}
