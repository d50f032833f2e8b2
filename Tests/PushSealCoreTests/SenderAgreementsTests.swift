import Foundation
import PushSealPrimitives
import PushSealTestSupport
import Testing

@testable import PushSealCore

/// Auth mode's static Diffie-Hellman kept between seals (``HPKE/SenderAgreements``): the same
/// envelopes, byte for byte, one agreement computed per pair of keys, and never more kept than
/// its capacity.
@Suite("Sender agreements kept between seals")
struct SenderAgreementsTests {
    static let authVectors = (EnvelopeVectorTests.file?.positive ?? []).filter { $0.sender != nil }

    static func seal(_ content: String, for device: PrivateKey, sender: PrivateKey, _ agreements: HPKE.SenderAgreements)
        throws -> Envelope
    {
        try Envelope.seal(
            padded: Padding.pad(Array(content.utf8), to: 256), for: .publicKey(try #require(device.publicKey)),
            sender: sender, ephemeral: nil, nonce: nil, agreements: agreements)
    }

    @Test("an auth vector sealed with the agreement computed, then with it kept, is the vector's envelope both times")
    func knownAnswers() throws {
        #expect(Self.authVectors.count >= 2, "the file has auth-mode vectors of both suites")
        let agreements = HPKE.SenderAgreements(capacity: 64)
        var pairs = Set<[UInt8]>()
        for vector in Self.authVectors {
            let recipientKey = try PrivateKey(jwk: vector.recipient)
            let sender = try PrivateKey(jwk: try #require(vector.sender))
            pairs.insert(Array((sender.kid + " " + recipientKey.kid).utf8))
            let ephemeralBytes = SecretBytes(copying: Hex.decode(try #require(vector.ephemeralPrivateKey)))
            let ephemeral: HPKE.PrivateKey =
                recipientKey.suite == .x25519
                ? .x25519(try X25519.PrivateKey(rawRepresentation: ephemeralBytes))
                : .p256(try P256.PrivateKey(rawRepresentation: ephemeralBytes))
            let padded = Padding.pad(Array(try #require(vector.content).utf8), to: try #require(vector.paddedLength))
            for round in ["computed", "kept"] {
                let envelope = try Envelope.seal(
                    padded: padded, for: .publicKey(try #require(recipientKey.publicKey)), sender: sender,
                    ephemeral: ephemeral, nonce: nil, agreements: agreements)
                #expect(envelope.base64URL == vector.envelope, "vector \(vector.tcId), agreement \(round)")
            }
        }
        #expect(agreements.computed == pairs.count, "one agreement per pair of keys, however many seals")
        #expect(agreements.count == pairs.count)
        #expect(agreements.reused == Self.authVectors.count * 2 - pairs.count, "every other seal reused one")
    }

    @Test("three devices sealed for twice: three agreements, and every envelope opens with its device's key")
    func devices() throws {
        let sender = try PrivateKey.generate(suite: .x25519, kid: "sender")
        let devices = try (0..<3).map { try PrivateKey.generate(suite: .x25519, kid: "device-\($0)") }
        let agreements = HPKE.SenderAgreements(capacity: 16)
        for round in 0..<2 {
            for device in devices {
                let envelope = try Self.seal(#"{"round":\#(round)}"#, for: device, sender: sender, agreements)
                let ring = KeyRing(deviceKeys: [device], trustedSenders: [try #require(sender.publicKey)])
                let opened = try envelope.open(with: ring)
                #expect(opened.content["round"] == .number(JSONNumber(round)) && opened.header.skid == "sender")
            }
        }
        #expect(agreements.computed == 3 && agreements.count == 3)
    }

    @Test("a second sender key for the same device gets its own agreement: its envelope opens as that sender's")
    func senders() throws {
        let device = try PrivateKey.generate(suite: .x25519, kid: "device")
        let first = try PrivateKey.generate(suite: .x25519, kid: "first")
        let second = try PrivateKey.generate(suite: .x25519, kid: "second")
        let agreements = HPKE.SenderAgreements(capacity: 16)
        _ = try Self.seal("{}", for: device, sender: first, agreements)
        let envelope = try Self.seal(#"{"from":"second"}"#, for: device, sender: second, agreements)
        let ring = KeyRing(deviceKeys: [device], trustedSenders: [try #require(second.publicKey)])
        #expect(try envelope.open(with: ring).content["from"] == .string("second"))
        #expect(agreements.computed == 2)
    }

    @Test("past its capacity an agreement is dropped for each new one: never more are kept")
    func bounded() throws {
        let sender = try PrivateKey.generate(suite: .x25519)
        let agreements = HPKE.SenderAgreements(capacity: 4)
        for _ in 0..<10 {
            _ = try Self.seal("{}", for: try PrivateKey.generate(suite: .x25519), sender: sender, agreements)
            #expect(agreements.count <= 4)
        }
        #expect(agreements.count == 4 && agreements.computed == 10)
    }

    @Test("a small-order device key is refused, and nothing is kept for it")
    func smallOrder() throws {
        let sender = HPKE.PrivateKey.x25519(X25519.PrivateKey())
        let agreements = HPKE.SenderAgreements(capacity: 4)
        let point = try X25519.PublicKey(rawRepresentation: [UInt8](repeating: 0, count: 32))
        #expect(throws: CryptoFailure.self) {
            _ = try agreements.secret(sender: sender, recipient: .x25519(point))
        }
        #expect(agreements.count == 0 && agreements.computed == 0)
        _ = try agreements.secret(sender: sender, recipient: .x25519(X25519.PrivateKey().publicKey))
        #expect(agreements.count == 1 && agreements.computed == 1)
    }
}
