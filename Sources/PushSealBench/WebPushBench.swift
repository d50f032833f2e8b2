import PushSealCore
import PushSealPrimitives

/// RFC 8291 messages: `WebPushMessage`'s seal and open of the bench payload's JSON text against
/// the floor of the same raw calls (a P-256 key pair, one ECDH, two HKDF extracts and three
/// expands, AES-128-GCM over the padded record), with none of the composition around them.
enum WebPushBench {
    /// The row's name in the table, and the Python peer's key for the same work.
    static let name = "webpush-rfc8291"

    /// The seal, open and their floors, ready to run.
    static func work(payload: JSONObject) throws -> SuiteBench.Work {
        let content = JSONWriter.bytes(.object(payload))
        let receiver = try WebPushReceiver.generate()
        let subscription = try receiver.subscription(endpoint: "https://push.example.net/bench")
        let body = try WebPushMessage.seal(content, for: subscription)
        let floor = try WebPushFloor(body: body)
        return SuiteBench.Work(
            seal: { _ = try WebPushMessage.seal(content, for: subscription) }, sealFloor: { try floor.seal() },
            open: { _ = try WebPushMessage.open(body, with: receiver) }, openFloor: { try floor.open() })
    }

    /// The comparison, as a suite's row.
    static func run(payload: JSONObject) throws -> SuiteBench.Result {
        let work = try work(payload: payload)
        return SuiteBench.Result(
            name: name, seal: try Stopwatch.compare(work.seal, work.sealFloor),
            open: try Stopwatch.compare(work.open, work.openFloor))
    }
}

/// The raw calls of one RFC 8291 message, inputs of the real sizes prepared in advance.
struct WebPushFloor {
    let header: [UInt8]
    let record: [UInt8]
    let sealedRecord: [UInt8]
    let authSecret = SecretBytes(randomCount: 16)
    let salt = SecureRandom.bytes(16)
    let info = SecureRandom.bytes(14 + 65 + 65)
    let receiver: P256.PrivateKey
    let senderPoint: [UInt8]
    let key = SecretBytes(randomCount: 16)
    let nonce = SecureRandom.bytes(12)

    init(body: [UInt8]) throws {
        header = Array(body.prefix(86))
        record = [UInt8](repeating: 0x41, count: body.count - 86 - 16)
        receiver = try P256.PrivateKey()
        senderPoint = try P256.PrivateKey().publicKey.x963Representation
        sealedRecord = try AEAD.aes128GCM.seal(key: key, nonce: nonce, aad: [UInt8](), plaintext: record)
    }

    private func schedule(_ secret: SecretBytes) throws {
        let keyPRK = try HKDF.extract(salt: authSecret, ikm: secret)
        let ikm = try HKDF.expand(prk: keyPRK, info: info, length: 32)
        let prk = try HKDF.extract(salt: salt, ikm: ikm)
        _ = try HKDF.expand(prk: prk, info: info.prefix(28), length: 16)
        _ = try HKDF.expand(prk: prk, info: info.prefix(24), length: 12)
    }

    func seal() throws {
        let ephemeral = try P256.PrivateKey()
        try schedule(try ephemeral.sharedSecret(with: receiver.publicKey))
        _ = header + (try AEAD.aes128GCM.seal(key: key, nonce: nonce, aad: [UInt8](), plaintext: record))
    }

    func open() throws {
        let sender = try P256.PublicKey(x963Representation: senderPoint)
        try schedule(try receiver.sharedSecret(with: sender))
        _ = try AEAD.aes128GCM.open(key: key, nonce: nonce, aad: [UInt8](), ciphertext: sealedRecord)
    }
}
