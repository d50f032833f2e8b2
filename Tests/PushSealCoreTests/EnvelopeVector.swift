import Foundation
import PushSealTestSupport
import Testing

@testable import PushSealCore

/// One entry of `Vectors/envelope-v1.json`, the file other implementations test against.
///
/// A positive vector gives everything needed to seal deterministically (keys, the ephemeral
/// private key or the nonce, the content and the padded length) and the expected envelope.
/// A negative vector gives a key store (device key and trusted senders) and an envelope that
/// must fail with `reason`.
struct EnvelopeVector: Sendable, CustomTestStringConvertible {
    let tcId: Int
    let comment: String
    let recipient: JSONObject
    let sender: JSONObject?
    let trustedSenders: [JSONObject]
    let ephemeralPrivateKey: String?
    let nonce: String?
    let content: String?
    let paddedLength: Int?
    let envelope: String
    let reason: String?

    var testDescription: String { "tcId \(tcId): \(comment)" }

    /// The key ring a negative vector is opened with (a positive one: recipient plus sender).
    func keyRing() throws -> KeyRing {
        var senders = try trustedSenders.map { try PublicKey(jwk: $0) }
        if let sender, let senderKey = try PrivateKey(jwk: sender).publicKey { senders.append(senderKey) }
        return KeyRing(deviceKeys: [try PrivateKey(jwk: recipient)], trustedSenders: senders)
    }

    init(
        tcId: Int, comment: String, recipient: JSONObject, sender: JSONObject? = nil,
        trustedSenders: [JSONObject] = [], ephemeralPrivateKey: String? = nil, nonce: String? = nil,
        content: String? = nil, paddedLength: Int? = nil, envelope: String, reason: String? = nil
    ) {
        self.tcId = tcId
        self.comment = comment
        self.recipient = recipient
        self.sender = sender
        self.trustedSenders = trustedSenders
        self.ephemeralPrivateKey = ephemeralPrivateKey
        self.nonce = nonce
        self.content = content
        self.paddedLength = paddedLength
        self.envelope = envelope
        self.reason = reason
    }

    init(json object: JSONObject) throws {
        func string(_ name: String) -> String? { object[name]?.stringValue }
        tcId = object["tcId"]?.numberValue?.intValue ?? -1
        comment = string("comment") ?? ""
        recipient = object["recipient"]?.objectValue ?? JSONObject()
        sender = object["sender"]?.objectValue
        if case .array(let senders)? = object["trustedSenders"] {
            trustedSenders = senders.compactMap(\.objectValue)
        } else {
            trustedSenders = []
        }
        ephemeralPrivateKey = string("ephemeralPrivateKey")
        nonce = string("nonce")
        content = string("content")
        paddedLength = object["paddedLength"]?.numberValue?.intValue
        envelope = string("envelope") ?? ""
        reason = string("reason")
    }

    var json: JSONObject {
        var object = JSONObject()
        object["tcId"] = .number(JSONNumber(tcId))
        object["comment"] = .string(comment)
        object["recipient"] = .object(recipient)
        if let sender { object["sender"] = .object(sender) }
        if !trustedSenders.isEmpty { object["trustedSenders"] = .array(trustedSenders.map { .object($0) }) }
        if let ephemeralPrivateKey { object["ephemeralPrivateKey"] = .string(ephemeralPrivateKey) }
        if let nonce { object["nonce"] = .string(nonce) }
        if let content { object["content"] = .string(content) }
        if let paddedLength { object["paddedLength"] = .number(JSONNumber(paddedLength)) }
        object["envelope"] = .string(envelope)
        if let reason { object["reason"] = .string(reason) }
        return object
    }
}

/// The vector file: a description and three lists. Receipt vectors (envelope-v1.md, "Receipts")
/// are kept as their JSON: the decryptor's tests and other implementations read them.
struct EnvelopeVectorFile {
    let positive: [EnvelopeVector]
    let negative: [EnvelopeVector]
    let receipts: [JSONObject]

    static let url = TestVectors.packageRoot.appendingPathComponent(
        "Tests/PushSealCoreTests/Vectors/envelope-v1.json")

    static func load() throws -> EnvelopeVectorFile {
        guard let url = Bundle.module.url(forResource: "envelope-v1", withExtension: "json", subdirectory: "Vectors")
        else { throw PushSealError(.invalidPayload, "Vectors/envelope-v1.json is not in the test bundle") }
        let root = try JSONParser.parse(Array(try Data(contentsOf: url)))
        func list(_ name: String) throws -> [EnvelopeVector] {
            guard case .array(let items)? = root.objectValue?[name] else { return [] }
            return try items.compactMap(\.objectValue).map(EnvelopeVector.init(json:))
        }
        guard case .array(let receipts)? = root.objectValue?["receipts"] else {
            throw PushSealError(.invalidPayload, "Vectors/envelope-v1.json has no receipts")
        }
        return EnvelopeVectorFile(
            positive: try list("positive"), negative: try list("negative"), receipts: receipts.compactMap(\.objectValue)
        )
    }

    /// The file's text: one vector a line, so that a diff shows which vector changed.
    func text() -> String {
        func lines(_ vectors: [EnvelopeVector]) -> String {
            vectors.map { "    " + JSONWriter.string(.object($0.json)) }.joined(separator: ",\n")
        }
        return """
            {
              "description": "PushSeal envelope v1 test vectors. Positive: seal content padded to paddedLength for recipient (with sender: HPKE auth mode) using ephemeralPrivateKey (HPKE, raw scalar hex) or nonce (suite 0x03, hex) and info \\"pushseal v1\\"; the result must equal envelope (base64url), and opening it must give content. Negative: open envelope with a key store holding recipient and trusting trustedSenders; it must fail with reason. Receipts: open payload (an APNs payload as it arrives) with a key store holding recipient; it must show shown (the payload handed on, without pushseal_receipt), with outcome and reason, and report with ticket: the request receipt, or the batch item for batch.url; a null ticket sends no receipt.",
              "positive": [
            \(lines(positive))
              ],
              "negative": [
            \(lines(negative))
              ],
              "receipts": [
            \(receipts.map { "    " + JSONWriter.string(.object($0)) }.joined(separator: ",\n"))
              ]
            }

            """
    }
}
