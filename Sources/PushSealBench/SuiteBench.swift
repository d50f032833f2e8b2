import PushSealBenchStatistics
import PushSealCore
import PushSealEncryptor
import PushSealPrimitives

/// One suite and mode: the product's seal and open against the floor made of the same raw
/// primitive calls (key generation, Diffie-Hellman, the five per-message HKDF calls, the AEAD,
/// base64) with none of the composition around them.
struct SuiteBench {
    let name: String
    let suite: EnvelopeSuite
    let authenticated: Bool

    struct Result {
        let name: String
        let seal: RateComparison
        let open: RateComparison
    }

    /// The product's seal and open of `payload`, and the floor's, ready to run.
    struct Work {
        let seal: () throws -> Void
        let sealFloor: () throws -> Void
        let open: () throws -> Void
        let openFloor: () throws -> Void
    }

    func work(payload: JSONObject) throws -> Work {
        let device = try PrivateKey.generate(suite: suite)
        let sender = authenticated ? try PrivateKey.generate(suite: suite) : nil
        let recipient: Recipient = device.publicKey.map { .publicKey($0) } ?? .sharedKey(device)
        let encryptor = try Encryptor(recipient: recipient, sender: sender)
        let ring = KeyRing(deviceKeys: [device], trustedSenders: sender?.publicKey.map { [$0] } ?? [])
        let sealed = try encryptor.seal(payload)
        let enc = sealed.envelope.base64URL
        let floor = try Floor(suite: suite, authenticated: authenticated, envelope: sealed.envelope)
        return Work(
            seal: { _ = try encryptor.seal(payload) }, sealFloor: { try floor.seal() },
            open: { _ = try Envelope(base64URL: enc).open(with: ring) }, openFloor: { try floor.open(enc) })
    }

    func run(payload: JSONObject) throws -> Result {
        let work = try work(payload: payload)
        return Result(
            name: name, seal: try Stopwatch.compare(work.seal, work.sealFloor),
            open: try Stopwatch.compare(work.open, work.openFloor))
    }
}

/// The raw primitive calls one message needs, with inputs of the real sizes prepared in advance.
struct Floor {
    let suite: EnvelopeSuite
    let authenticated: Bool
    let padded: [UInt8]
    let header: [UInt8]
    let enc: [UInt8]
    let sealedByFloor: [UInt8]
    let key = SecretBytes(randomCount: 32)
    let nonce = SecureRandom.bytes(12)
    let xNonce = SecureRandom.bytes(24)
    let x25519Peer = X25519.PrivateKey()
    let x25519Own = X25519.PrivateKey()
    let p256Peer: P256.PrivateKey
    let p256Own: P256.PrivateKey
    let dhInput = SecretBytes(randomCount: 7 + 5 + 7 + 64)
    let kemContext = SecureRandom.bytes(2 + 7 + 5 + 13 + 32 * 3)
    let scheduleInfo = SecureRandom.bytes(2 + 7 + 10 + 10 + 65)

    init(suite: EnvelopeSuite, authenticated: Bool, envelope: Envelope) throws {
        self.suite = suite
        self.authenticated = authenticated
        header = envelope.header.bytes
        enc = envelope.header.enc
        padded = Array(repeating: 0x41, count: envelope.ciphertext.count - 16)
        p256Peer = try P256.PrivateKey()
        p256Own = try P256.PrivateKey()
        let aead: AEAD = suite == .x25519 ? .chaCha20Poly1305 : suite == .p256 ? .aes256GCM : .xChaCha20Poly1305
        sealedByFloor = try aead.seal(
            key: key, nonce: suite == .xChaCha ? xNonce : nonce, aad: header, plaintext: padded)
    }

    private var aead: AEAD {
        switch suite {
        case .x25519: .chaCha20Poly1305
        case .p256: .aes256GCM
        default: .xChaCha20Poly1305
        }
    }

    /// The key agreement of one message: a fresh key pair and one DH (two in auth mode) when
    /// sealing; decoding `enc` and one DH (two) when opening.
    private func agree(sealing: Bool) throws -> SecretBytes {
        switch suite {
        case .x25519:
            let ephemeral = sealing ? X25519.PrivateKey() : x25519Own
            let peer = sealing ? x25519Peer.publicKey : try X25519.PublicKey(rawRepresentation: enc)
            let secret = try ephemeral.sharedSecret(with: peer)
            if authenticated { _ = try x25519Own.sharedSecret(with: x25519Peer.publicKey) }
            return secret
        default:
            let ephemeral = sealing ? try P256.PrivateKey() : p256Own
            let peer =
                sealing
                ? p256Peer.publicKey : try P256.PublicKey(x963Representation: p256Peer.publicKey.x963Representation)
            let secret = try ephemeral.sharedSecret(with: peer)
            if authenticated { _ = try p256Own.sharedSecret(with: p256Peer.publicKey) }
            return secret
        }
    }

    /// `ExtractAndExpand` and the key schedule: two extracts and three expands per message.
    private func schedule(_ secret: SecretBytes) throws {
        let prk = try HKDF.extract(salt: [UInt8](), ikm: dhInput)
        let shared = try HKDF.expand(prk: prk, info: kemContext, length: 32)
        let scheduleSecret = try HKDF.extract(salt: shared, ikm: secret)
        _ = try HKDF.expand(prk: scheduleSecret, info: scheduleInfo, length: 32)
        _ = try HKDF.expand(prk: scheduleSecret, info: scheduleInfo, length: 12)
    }

    func seal() throws {
        var output: [UInt8] = []
        if suite == .xChaCha {
            let nonce = SecureRandom.bytes(24)
            Base64URL.encode(
                header + (try aead.seal(key: key, nonce: nonce, aad: header, plaintext: padded)), into: &output)
            return
        }
        // HPKE: the key schedule's AEAD nonce is derived, not drawn.
        try schedule(try agree(sealing: true))
        Base64URL.encode(
            header + (try aead.seal(key: key, nonce: nonce, aad: header, plaintext: padded)), into: &output)
    }

    /// Decodes the real envelope's text, then opens a ciphertext of the same size that the
    /// floor's own key authenticates (a failing open would skip the decryption and flatter it).
    func open(_ text: String) throws {
        guard Base64URL.decode(text) != nil else { throw CryptoFailure.invalidInput("bad base64") }
        if suite == .xChaCha {
            _ = try aead.open(key: key, nonce: xNonce, aad: header, ciphertext: sealedByFloor)
            return
        }
        try schedule(try agree(sealing: false))
        _ = try aead.open(key: key, nonce: nonce, aad: header, ciphertext: sealedByFloor)
    }
}
