import PushSealPrimitives

@testable import PushSealCore

/// The receipt vectors of `Vectors/envelope-v1.json` (envelope-v1.md, "Receipts"): APNs payloads
/// as they arrive, with a display ticket sealed into the content and a failure ticket beside the
/// envelope, and what an opener must show and report. Every ticket is derived from a fixed label.
extension EnvelopeVectorGenerator.Builder {
    static let placeholder: JSONValue = .object(
        JSONObject([
            (
                "alert",
                .object(
                    JSONObject([("title", .string("New notification")), ("body", .string("Open the app to view it."))]))
            ),
            ("mutable-content", .number(JSONNumber(1))),
        ]))

    /// A ticket for the delivery `label` names, its capability derived from `role`.
    static func ticket(_ label: String, _ role: String) throws -> ReceiptTicket {
        let delivery = Base64URL.encode(Array(EnvelopeVectorGenerator.seed("receipt delivery \(label)").prefix(16)))
        let capability = Base64URL.encode(
            Array(EnvelopeVectorGenerator.seed("receipt \(role) capability \(label)").prefix(16)))
        return try ReceiptTicket(
            json: .object(
                JSONObject([
                    ("url", .string("https://push.example.com/v1/receipts/\(delivery)")),
                    ("capability", .string(capability)),
                ])))
    }

    /// `object` with `member` set to `value` last (or with its value replaced).
    static func with(_ object: JSONObject, _ member: String, _ value: JSONValue) -> JSONObject {
        var copy = object
        copy[member] = value
        return copy
    }

    /// Appends a receipt vector: `payload` opened with the device key of `suite` shows `shown`,
    /// with `outcome` (and `reason`), and reports with `ticket`.
    mutating func receipt(
        _ comment: String, suite: EnvelopeSuite, payload: JSONObject, shown: JSONObject, outcome: String,
        reason: PushSealError.Code? = nil, ticket: ReceiptTicket?
    ) throws {
        let recipientKey = try EnvelopeVectorGenerator.key(suite, "device \(suite.shortName)")
        var vector = JSONObject([
            ("tcId", .number(JSONNumber(positive.count + negative.count + receipts.count + 1))),
            ("comment", .string(comment)), ("recipient", .object(recipientKey.privateJWK)),
            ("payload", .string(JSONWriter.string(.object(payload)))),
            ("shown", .string(JSONWriter.string(.object(shown)))), ("outcome", .string(outcome)),
        ])
        if let reason { vector["reason"] = .string(reason.rawValue) }
        let body = JSONObject(
            [("outcome", .string(outcome))] + (reason.map { [("reason", JSONValue.string($0.rawValue))] } ?? []))
        if let ticket {
            vector["ticket"] = .object(ticket.json)
            vector["receipt"] = .object(
                JSONObject([
                    ("method", .string("POST")), ("url", .string(ticket.url)),
                    ("authorization", .string(ticket.authorization)),
                    ("body", .string(JSONWriter.string(.object(body)))),
                ]))
            guard let outcomeValue = reason.map({ ReceiptOutcome.degraded(reason: $0.rawValue) }) ?? .displayed else {
                throw PushSealError(.invalidPayload, "\(reason?.rawValue ?? "") is no receipt's reason")
            }
            vector["batch"] = .object(
                JSONObject([("url", .string(ticket.batchURL)), ("item", .object(ticket.batchItem(outcomeValue)))]))
        } else {
            vector["ticket"] = .null
        }
        receipts.append(vector)
    }

    mutating func addReceipts() throws {
        guard let content = try JSONParser.parse(Self.contents[0]).objectValue else {
            throw PushSealError(.invalidPayload, "the first content is not an object")
        }
        func outer(_ envelope: String, failure: JSONValue?) -> JSONObject {
            var payload = JSONObject([("aps", Self.placeholder), ("enc", .string(envelope))])
            if let failure { payload[ReceiptTicket.member] = failure }
            return payload
        }
        func sealedPayload(
            _ label: String, suite: EnvelopeSuite, sealing: JSONObject, deviceLabel: String? = nil,
            failure: ReceiptTicket?
        ) throws -> JSONObject {
            let envelope = try sealed(
                "", suite: suite, label: deviceLabel ?? "device \(suite.shortName)",
                content: JSONWriter.string(.object(sealing))
            ).envelope
            return outer(envelope.base64URL, failure: failure.map { .object($0.json) })
        }

        for (suite, name) in [(EnvelopeSuite.x25519, "X25519"), (.p256, "P-256"), (.xChaCha, "XChaCha20-Poly1305")] {
            let label = "displayed \(suite.shortName)"
            let display = try Self.ticket(label, "display")
            let payload = try sealedPayload(
                label, suite: suite, sealing: Self.with(content, ReceiptTicket.member, .object(display.json)),
                failure: try Self.ticket(label, "failure"))
            try receipt(
                "\(name): the envelope opens; displayed, reported with the display ticket, which is not shown",
                suite: suite, payload: payload, shown: content, outcome: "displayed", ticket: display)
        }

        let stranger = try Self.ticket("unknown key", "failure")
        let forAnother = try sealedPayload(
            "unknown key", suite: .x25519,
            sealing: Self.with(content, ReceiptTicket.member, .object(try Self.ticket("unknown key", "display").json)),
            deviceLabel: "another device x25519", failure: stranger)
        try receipt(
            "sealed for another device's key: degraded unknown-key, reported with the failure ticket, which is not shown",
            suite: .x25519, payload: forAnother, shown: outer(forAnother["enc"]?.stringValue ?? "", failure: nil),
            outcome: "degraded", reason: .unknownKey, ticket: stranger)

        let tamperedTicket = try Self.ticket("tampered", "failure")
        let sound = try sealedPayload(
            "tampered", suite: .x25519,
            sealing: Self.with(content, ReceiptTicket.member, .object(try Self.ticket("tampered", "display").json)),
            failure: tamperedTicket)
        guard var bytes = sound["enc"]?.stringValue.flatMap(Base64URL.decode) else {
            throw PushSealError(.invalidPayload, "the sealed payload has no envelope")
        }
        bytes[bytes.count - 1] ^= 0x01
        let tampered = outer(Base64URL.encode(bytes), failure: .object(tamperedTicket.json))
        try receipt(
            "the envelope's last byte flipped: degraded decryption-failed, reported with the failure ticket",
            suite: .x25519, payload: tampered, shown: outer(Base64URL.encode(bytes), failure: nil),
            outcome: "degraded", reason: .decryptionFailed, ticket: tamperedTicket)

        let notBase64 = outer("not base64url!", failure: .object(try Self.ticket("malformed", "failure").json))
        try receipt(
            "enc is not base64url: degraded malformed-envelope, reported with the failure ticket",
            suite: .x25519, payload: notBase64, shown: outer("not base64url!", failure: nil), outcome: "degraded",
            reason: .malformedEnvelope, ticket: try Self.ticket("malformed", "failure"))

        let noTicket = try Self.ticket("short capability", "display")
        var shortCapability = noTicket.json
        shortCapability["capability"] = .string(String(Base64URL.encode(Array(repeating: 7, count: 15))))
        let withBadTicket = try sealedPayload(
            "short capability", suite: .x25519,
            sealing: Self.with(content, ReceiptTicket.member, .object(shortCapability)),
            failure: try Self.ticket("short capability", "failure"))
        try receipt(
            "the sealed member is no ticket (a 15-byte capability): displayed all the same, no receipt, the member not shown",
            suite: .x25519, payload: withBadTicket, shown: content, outcome: "displayed", ticket: nil)

        let without = try sealedPayload(
            "no display ticket", suite: .x25519, sealing: content,
            failure: try Self.ticket("no display ticket", "failure"))
        try receipt(
            "content that opened has no display ticket: no receipt, though a failure ticket stands beside it",
            suite: .x25519, payload: without, shown: content, outcome: "displayed", ticket: nil)

        var httpTicket = try Self.ticket("http", "failure").json
        httpTicket["url"] = .string("http://push.example.com/v1/receipts/AAAAAAAAAAAAAAAAAAAAAA")
        let plainURL = outer("not base64url!", failure: .object(httpTicket))
        try receipt(
            "the failure ticket's url is not https: degraded malformed-envelope, no receipt, the member not shown",
            suite: .x25519, payload: plainURL, shown: outer("not base64url!", failure: nil), outcome: "degraded",
            reason: .malformedEnvelope, ticket: nil)
    }
}
