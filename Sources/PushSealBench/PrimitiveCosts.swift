import PushSealCore
import PushSealPrimitives

/// What each primitive call costs here, in microseconds: where a message's time goes.
enum PrimitiveCosts {
    static func measure(payload: JSONObject) throws -> [(String, Double)] {
        let x25519 = X25519.PrivateKey()
        let x25519Peer = X25519.PrivateKey().publicKey
        let p256 = try P256.PrivateKey()
        let p256Peer = try P256.PrivateKey().publicKey
        let key = SecretBytes(randomCount: 32)
        let nonce = SecureRandom.bytes(12)
        let plaintext = SecureRandom.bytes(1536)
        let sealed = try AEAD.chaCha20Poly1305.seal(key: key, nonce: nonce, aad: [UInt8](), plaintext: plaintext)
        let prk = try HKDF.extract(salt: [UInt8](), ikm: SecureRandom.bytes(80))
        let info = SecureRandom.bytes(120)
        let envelope = SecureRandom.bytes(1600)
        let text = Base64URL.encode(envelope)
        let json = JSONWriter.bytes(.object(payload))
        let work: [(String, () throws -> Void)] = [
            ("X25519 key generation", { _ = X25519.PrivateKey() }),
            ("X25519 agreement", { _ = try x25519.sharedSecret(with: x25519Peer) }),
            ("P-256 key generation", { _ = try P256.PrivateKey() }),
            ("P-256 agreement", { _ = try p256.sharedSecret(with: p256Peer) }),
            ("P-256 point import", { _ = try P256.PublicKey(x963Representation: p256Peer.x963Representation) }),
            ("HKDF-Extract", { _ = try HKDF.extract(salt: [UInt8](), ikm: info) }),
            ("HKDF-Expand (32 bytes)", { _ = try HKDF.expand(prk: prk, info: info, length: 32) }),
            (
                "ChaCha20-Poly1305 seal 1.5 KB",
                { _ = try AEAD.chaCha20Poly1305.seal(key: key, nonce: nonce, aad: [UInt8](), plaintext: plaintext) }
            ),
            (
                "ChaCha20-Poly1305 open 1.5 KB",
                { _ = try AEAD.chaCha20Poly1305.open(key: key, nonce: nonce, aad: [UInt8](), ciphertext: sealed) }
            ),
            (
                "AES-256-GCM seal 1.5 KB",
                { _ = try AEAD.aes256GCM.seal(key: key, nonce: nonce, aad: [UInt8](), plaintext: plaintext) }
            ),
            ("base64url encode 1.6 KB", { _ = Base64URL.encode(envelope) }),
            ("base64url decode 1.6 KB", { _ = Base64URL.decode(text) }),
            ("JSON parse 1.5 KB payload (checked, no string made)", { _ = try JSONParser.parse(json) }),
            ("JSON parse, then every value read", { _ = readAll(try JSONParser.parse(json)) }),
            ("JSON write 1.5 KB payload", { _ = JSONWriter.bytes(.object(payload)) }),
        ]
        return try work.map { name, body in (name, try Stopwatch.microseconds(body)) }
    }

    /// Reads every member and element of `value`, making each string: what a consumer of the
    /// whole content (one that builds `userInfo` from its values) pays after the parse.
    static func readAll(_ value: JSONValue) -> Int {
        switch value {
        case .object(let object): object.reduce(0) { $0 + $1.name.utf8.count + readAll($1.value) }
        case .array(let elements): elements.reduce(0) { $0 + readAll($1) }
        case .string(let text): text.utf8.count
        case .number(let number): number.literal.utf8.count
        case .bool, .null: 1
        }
    }
}
