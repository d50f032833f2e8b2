import Foundation
import PushSealPrimitives
import PushSealTestSupport
import Testing

@testable import PushSealCore

/// The project's own vectors, `Vectors/envelope-v1.json`: the file other implementations test against.
@Suite("envelope-v1.json vectors")
struct EnvelopeVectorTests {
    static let file: EnvelopeVectorFile? = try? EnvelopeVectorFile.load()

    @Test("the file loads and holds every kind of vector")
    func fileLoads() throws {
        let file = try #require(Self.file)
        print("envelope-v1.json: \(file.positive.count) positive and \(file.negative.count) negative vectors")
        #expect(file.positive.count >= 17)
        #expect(file.negative.count >= 100)
        let reasons = Set(file.negative.compactMap(\.reason))
        let expected: Set<String> = [
            "malformed-envelope", "unsupported-version", "unsupported-suite", "unknown-key", "untrusted-sender",
            "authentication-required", "decryption-failed", "malformed-content",
        ]
        #expect(reasons == expected)
    }

    @Test("sealing the inputs gives the envelope, byte for byte", arguments: file?.positive ?? [])
    func seal(_ vector: EnvelopeVector) throws {
        let recipientKey = try PrivateKey(jwk: vector.recipient)
        let recipient: Recipient = recipientKey.publicKey.map { .publicKey($0) } ?? .sharedKey(recipientKey)
        let sender = try vector.sender.map { try PrivateKey(jwk: $0) }
        let ephemeral = try vector.ephemeralPrivateKey.map { hex -> HPKE.PrivateKey in
            let raw = SecretBytes(copying: Hex.decode(hex))
            return recipientKey.suite == .x25519
                ? .x25519(try X25519.PrivateKey(rawRepresentation: raw))
                : .p256(try P256.PrivateKey(rawRepresentation: raw))
        }
        let content = Array(try #require(vector.content).utf8)
        let padded = Padding.pad(content, to: try #require(vector.paddedLength))
        let envelope = try Envelope.seal(
            padded: padded, for: recipient, sender: sender, ephemeral: ephemeral, nonce: vector.nonce.map(Hex.decode))
        #expect(envelope.base64URL == vector.envelope)
    }

    @Test("opening the envelope gives the content and the header's ids", arguments: file?.positive ?? [])
    func open(_ vector: EnvelopeVector) throws {
        let opened = try Envelope(base64URL: vector.envelope).open(with: try vector.keyRing())
        let content = try JSONParser.parse(try #require(vector.content))
        #expect(JSONValue.object(opened.content) == content)
        #expect(opened.header.kid == (try PrivateKey(jwk: vector.recipient)).kid)
        #expect(opened.header.mode == (vector.sender == nil ? .base : .auth))
        #expect(opened.header.skid == (try vector.sender.map { try PrivateKey(jwk: $0).kid }))
    }

    @Test("every negative vector fails with its reason", arguments: file?.negative ?? [])
    func refuse(_ vector: EnvelopeVector) throws {
        let reason = try #require(vector.reason)
        var failure: PushSealError?
        do {
            _ = try Envelope(base64URL: vector.envelope).open(with: try vector.keyRing())
        } catch let error as PushSealError {
            failure = error
        }
        #expect(failure?.code.rawValue == reason, "\(failure?.description ?? "it opened")")
    }

    @Test("the generator reproduces the file exactly (keys and ephemerals are derived, not random)")
    func reproducible() throws {
        let onDisk = try String(contentsOf: EnvelopeVectorFile.url, encoding: .utf8)
        #expect(try EnvelopeVectorGenerator.file().text() == onDisk)
    }

    @Test(
        "rewrite Vectors/envelope-v1.json",
        .enabled(if: ProcessInfo.processInfo.environment["PUSHSEAL_WRITE_VECTORS"] != nil))
    func writeVectors() throws {
        try EnvelopeVectorGenerator.file().text().write(to: EnvelopeVectorFile.url, atomically: true, encoding: .utf8)
    }
}
