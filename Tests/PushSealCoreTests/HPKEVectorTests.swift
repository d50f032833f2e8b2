import PushSealPrimitives
import PushSealTestSupport
import Testing

@testable import PushSealCore

/// RFC 9180's own vectors (Appendix A, the complete file from `cryptography-vectors`), every entry
/// whose KEM, KDF and AEAD PushSeal's HPKE implements (DHKEM X25519 or P-256, HKDF-SHA256, and
/// AES-128-GCM, AES-256-GCM or ChaCha20-Poly1305: the three envelope suites and the three other
/// pairings), in base and auth mode, in both directions: seal with the given ephemeral key and
/// compare every ciphertext; open every ciphertext; check the intermediate values and the exports.
/// Then the negative cases RFC 9180's file does not carry.
@Suite("RFC 9180 HPKE vectors")
struct HPKEVectorTests {
    struct Vector: Decodable, Sendable, CustomTestStringConvertible {
        let mode: UInt8
        let kem_id: UInt16
        let kdf_id: UInt16
        let aead_id: UInt16
        let info: String
        let ikmR: String
        let ikmE: String
        let ikmS: String?
        let skRm: String
        let pkRm: String
        let pkSm: String?
        let enc: String
        let shared_secret: String
        let key_schedule_context: String
        let key: String
        let base_nonce: String
        let exporter_secret: String
        let encryptions: [Encryption]
        let exports: [Export]

        struct Encryption: Decodable, Sendable {
            let aad: String
            let ct: String
            let nonce: String
            let pt: String
        }

        struct Export: Decodable, Sendable {
            let exporter_context: String
            let L: Int
            let exported_value: String
        }

        var testDescription: String { "mode \(mode) kem 0x\(String(kem_id, radix: 16)) aead \(aead_id)" }

        var suite: HPKE.CipherSuite? { HPKE.CipherSuite(kemID: kem_id, kdfID: kdf_id, aeadID: aead_id) }
        var hpkeMode: HPKE.Mode { mode == 2 ? .auth : .base }
    }

    /// Every entry of the file; the PSK modes (1 and 3) use a key PushSeal never takes.
    static let file: [Vector] = (try? TestVectors.load([Vector].self, TestVectors.rfc9180)) ?? []

    /// The entries in the suites PushSeal's HPKE implements, in base or auth mode.
    static let vectors: [Vector] = file.filter { $0.suite != nil && ($0.mode == 0 || $0.mode == 2) }

    @Test("of the file's 128 entries, the twelve in PushSeal's KEMs, KDF, AEADs and modes all run")
    func fileIsComplete() {
        #expect(Self.file.count == 128)
        #expect(Self.vectors.count == 12)
        let encryptions = Self.vectors.reduce(0) { $0 + $1.encryptions.count }
        print(
            "RFC 9180 test-vectors.json: \(Self.file.count) entries, \(Self.vectors.count) in PushSeal's "
                + "suites and modes run, \(encryptions) encryptions each sealed and opened")
        #expect(encryptions == 12 * 257)
    }

    @Test("seal with the derived ephemeral key: every value and ciphertext matches", arguments: vectors)
    func seal(_ vector: Vector) throws {
        let suite = try #require(vector.suite)
        let kem = suite.kem
        let recipient = try kem.deriveKeyPair(ikm: Hex.decode(vector.ikmR))
        #expect(Hex.encode(recipient.publicKey.serialized) == vector.pkRm)
        let ephemeral = try kem.deriveKeyPair(ikm: Hex.decode(vector.ikmE))
        let sender = try vector.ikmS.map { try kem.deriveKeyPair(ikm: Hex.decode($0)) }
        if let sender { #expect(Hex.encode(sender.publicKey.serialized) == vector.pkSm) }

        let parameters = try HPKE.Parameters(suite: suite, mode: vector.hpkeMode, info: Hex.decode(vector.info))
        #expect(Hex.encode(parameters.keyScheduleContext) == vector.key_schedule_context)
        var (enc, context) = try HPKE.setupSender(
            parameters, recipient: recipient.publicKey, sender: sender, ephemeral: ephemeral)
        #expect(Hex.encode(enc) == vector.enc)
        #expect(context.key == SecretBytes(copying: Hex.decode(vector.key)))
        #expect(Hex.encode(context.baseNonce) == vector.base_nonce)
        #expect(try context.exporterSecret() == SecretBytes(copying: Hex.decode(vector.exporter_secret)))
        for (sequence, encryption) in vector.encryptions.enumerated() {
            let sealed = try context.seal(aad: Hex.decode(encryption.aad), plaintext: Hex.decode(encryption.pt))
            #expect(Hex.encode(sealed) == encryption.ct, "sequence \(sequence)")
        }
        for export in vector.exports {
            let value = try context.export(context: Hex.decode(export.exporter_context), length: export.L)
            #expect(value == SecretBytes(copying: Hex.decode(export.exported_value)))
        }
    }

    @Test("open every ciphertext with the recipient's key", arguments: vectors)
    func open(_ vector: Vector) throws {
        let suite = try #require(vector.suite)
        let recipient = try Self.privateKey(suite.kem, vector.skRm)
        let sender = try vector.pkSm.map { try HPKE.PublicKey(kem: suite.kem, serialized: Hex.decode($0)) }
        let parameters = try HPKE.Parameters(suite: suite, mode: vector.hpkeMode, info: Hex.decode(vector.info))
        var context = try HPKE.setupRecipient(
            parameters, enc: Hex.decode(vector.enc), recipient: recipient, sender: sender)
        for (sequence, encryption) in vector.encryptions.enumerated() {
            let opened = try context.open(aad: Hex.decode(encryption.aad), ciphertext: Hex.decode(encryption.ct))
            #expect(Hex.encode(opened) == encryption.pt, "sequence \(sequence)")
        }
    }

    @Test("a flipped bit in ct, aad, enc or info, or the wrong sender key, is refused", arguments: vectors)
    func tampering(_ vector: Vector) throws {
        let suite = try #require(vector.suite)
        let recipient = try Self.privateKey(suite.kem, vector.skRm)
        let sender = try vector.pkSm.map { try HPKE.PublicKey(kem: suite.kem, serialized: Hex.decode($0)) }
        let first = try #require(vector.encryptions.first)
        let info = Hex.decode(vector.info)
        let enc = Hex.decode(vector.enc)
        let aad = Hex.decode(first.aad)
        let ct = Hex.decode(first.ct)

        func attempt(
            info: [UInt8] = info, enc: [UInt8] = enc, aad: [UInt8] = aad, ct: [UInt8] = ct,
            sender: HPKE.PublicKey? = sender
        ) throws {
            let parameters = try HPKE.Parameters(suite: suite, mode: vector.hpkeMode, info: info)
            var context = try HPKE.setupRecipient(parameters, enc: enc, recipient: recipient, sender: sender)
            _ = try context.open(aad: aad, ciphertext: ct)
        }
        try attempt()
        #expect(throws: CryptoFailure.self) { try attempt(ct: Self.flip(ct, at: 0)) }
        #expect(throws: CryptoFailure.self) { try attempt(ct: Self.flip(ct, at: ct.count - 1)) }
        #expect(throws: CryptoFailure.self) { try attempt(aad: Self.flip(aad, at: 0)) }
        #expect(throws: CryptoFailure.self) { try attempt(enc: Self.flip(enc, at: enc.count - 1)) }
        #expect(throws: CryptoFailure.self) { try attempt(info: Self.flip(info, at: 0)) }
        if vector.hpkeMode == .auth {
            let stranger = try HPKE.PrivateKey.generate(suite.kem).publicKey
            #expect(throws: CryptoFailure.self) { try attempt(sender: stranger) }
        }
    }

    private static func privateKey(_ kem: HPKE.KEM, _ hex: String) throws -> HPKE.PrivateKey {
        let raw = SecretBytes(copying: Hex.decode(hex))
        switch kem {
        case .x25519: return .x25519(try X25519.PrivateKey(rawRepresentation: raw))
        case .p256: return .p256(try P256.PrivateKey(rawRepresentation: raw))
        }
    }

    private static func flip(_ bytes: [UInt8], at index: Int) -> [UInt8] {
        var copy = bytes
        copy[index] ^= 0x01
        return copy
    }
}
