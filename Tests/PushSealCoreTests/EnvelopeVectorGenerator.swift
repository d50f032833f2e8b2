import Foundation
import PushSealPrimitives
import PushSealTestSupport

@testable import PushSealCore

/// Builds `Vectors/envelope-v1.json` from fixed inputs: every key comes from RFC 9180's
/// `DeriveKeyPair` over a fixed label, so the file is reproducible byte for byte.
///
/// Run `PUSHSEAL_WRITE_VECTORS=1 swift test --filter writeVectors` to rewrite it after a
/// deliberate change; the other tests only read it.
enum EnvelopeVectorGenerator {
    static func file() throws -> EnvelopeVectorFile {
        var builder = Builder()
        try builder.addPositive()
        try builder.addNegative()
        try builder.addReceipts()
        return EnvelopeVectorFile(positive: builder.positive, negative: builder.negative, receipts: builder.receipts)
    }

    static func seed(_ label: String) -> [UInt8] { SHA256.hash(Array("pushseal v1 vectors: \(label)".utf8)) }

    static func pair(_ kem: HPKE.KEM, _ label: String) throws -> HPKE.PrivateKey {
        try kem.deriveKeyPair(ikm: seed(label))
    }

    static func key(_ suite: EnvelopeSuite, _ label: String) throws -> PrivateKey {
        if suite == .xChaCha {
            let kid = "shared-" + label.split(separator: " ").joined(separator: "-")
            return PrivateKey(kid: kid, suite: suite, material: .shared(SecretBytes(copying: seed(label))))
        }
        let pair = try pair(suite == .x25519 ? .x25519 : .p256, label)
        return PrivateKey(
            kid: KeyID.derived(fromPublicKey: pair.publicKey.serialized), suite: suite, material: .pair(pair))
    }

    static func scalarHex(_ pair: HPKE.PrivateKey) -> String {
        switch pair {
        case .x25519(let key): key.rawRepresentation.withUnsafeBytes { Hex.encode($0) }
        case .p256(let key): key.rawRepresentation.withUnsafeBytes { Hex.encode($0) }
        }
    }

    static func recipient(_ key: PrivateKey) throws -> Recipient {
        if let publicKey = key.publicKey { return .publicKey(publicKey) }
        return .sharedKey(key)
    }

    struct Builder {
        var positive: [EnvelopeVector] = []
        var negative: [EnvelopeVector] = []
        /// Receipt vectors (``addReceipts()``), numbered after the others.
        var receipts: [JSONObject] = []

        static let contents = [
            #"{"aps":{"alert":{"title":"Order #1042 shipped","body":"Your parcel leaves Lyon today and arrives Thursday."},"badge":3,"sound":"default","thread-id":"orders"},"type":"order","order_id":1042,"event_id":"evt_01HV4Z"}"#,
            #"{"aps":{"alert":"Alice: the keys are under the mat 🔑","category":"MESSAGE"},"conversation":"c-77","event_id":"evt_02"}"#,
            #"{"aps":{"alert":{"loc-key":"PAYMENT_RECEIVED","loc-args":["42.00","€"]},"interruption-level":"time-sensitive","relevance-score":0.75},"amount":{"value":"42.00","currency":"EUR"}}"#,
            #"{"aps":{"alert":{"title":"Ünïcødé ✓","subtitle":"Ω","body":"\"quoted\" \\ backslash / slash\nnew line"},"target-content-id":"chat/9"},"nested":{"a":[1,2.5,-3e2,true,null]}}"#,
        ]

        /// A sealed vector: the envelope from `content` padded to `paddedLength`.
        mutating func sealed(
            _ comment: String, suite: EnvelopeSuite, label: String, sender senderLabel: String? = nil,
            content: String, padBlock: Int = Padding.defaultBlock
        ) throws -> (vector: EnvelopeVector, envelope: Envelope) {
            let recipientKey = try EnvelopeVectorGenerator.key(suite, label)
            let senderKey = try senderLabel.map { try EnvelopeVectorGenerator.key(suite, $0) }
            let contentBytes = Array(content.utf8)
            let paddedLength =
                Padding.paddedLength(contentCount: contentBytes.count, block: padBlock, maximum: 3000) ?? 0
            let padded = Padding.pad(contentBytes, to: paddedLength)
            let tcId = positive.count + negative.count + receipts.count + 1
            var ephemeral: HPKE.PrivateKey?
            var nonce: [UInt8]?
            if suite.isHPKE {
                ephemeral = try EnvelopeVectorGenerator.pair(suite == .x25519 ? .x25519 : .p256, "ephemeral \(tcId)")
            } else {
                nonce = Array(EnvelopeVectorGenerator.seed("nonce \(tcId)").prefix(24))
            }
            let envelope = try Envelope.seal(
                padded: padded, for: try EnvelopeVectorGenerator.recipient(recipientKey), sender: senderKey,
                ephemeral: ephemeral, nonce: nonce)
            let vector = EnvelopeVector(
                tcId: tcId, comment: comment, recipient: recipientKey.privateJWK, sender: senderKey?.privateJWK,
                ephemeralPrivateKey: ephemeral.map(EnvelopeVectorGenerator.scalarHex), nonce: nonce.map(Hex.encode),
                content: content, paddedLength: paddedLength, envelope: envelope.base64URL)
            return (vector, envelope)
        }

        mutating func addPositive() throws {
            for (suite, name) in [(EnvelopeSuite.x25519, "X25519"), (.p256, "P-256")] {
                for (index, content) in Self.contents.enumerated() {
                    positive.append(
                        try sealed(
                            "\(name) base mode, content \(index + 1)", suite: suite,
                            label: "device \(suite.shortName)", content: content
                        ).vector)
                }
                positive.append(
                    try sealed(
                        "\(name) auth mode", suite: suite, label: "device \(suite.shortName)",
                        sender: "sender \(suite.shortName)", content: Self.contents[0]
                    ).vector)
                positive.append(
                    try sealed(
                        "\(name) auth mode, 256-byte pad block", suite: suite,
                        label: "device \(suite.shortName)", sender: "sender \(suite.shortName)",
                        content: Self.contents[1], padBlock: 256
                    ).vector)
            }
            for (index, content) in Self.contents.enumerated() {
                positive.append(
                    try sealed(
                        "XChaCha20-Poly1305 shared key, content \(index + 1)", suite: .xChaCha,
                        label: "device xchacha", content: content
                    ).vector)
            }
            positive.append(
                try sealed(
                    "X25519 base mode, the smallest content {}", suite: .x25519,
                    label: "device x25519", content: "{}"
                ).vector)
        }

        /// A negative vector opened with the device key of `suite` (and `trusted` senders).
        mutating func refuse(
            _ comment: String, _ reason: PushSealError.Code, envelope: [UInt8], suite: EnvelopeSuite = .x25519,
            trusted: [String] = []
        ) throws {
            let recipientKey = try EnvelopeVectorGenerator.key(suite, "device \(suite.shortName)")
            let senders = try trusted.compactMap { try EnvelopeVectorGenerator.key(suite, $0).publicKey?.jwk }
            negative.append(
                EnvelopeVector(
                    tcId: positive.count + negative.count + 1, comment: comment, recipient: recipientKey.privateJWK,
                    trustedSenders: senders, envelope: Base64URL.encode(envelope), reason: reason.rawValue))
        }

        /// An envelope of `suite` over arbitrary padded bytes.
        mutating func sealRaw(_ padded: [UInt8], suite: EnvelopeSuite = .x25519) throws -> [UInt8] {
            let key = try EnvelopeVectorGenerator.key(suite, "device \(suite.shortName)")
            let ephemeral =
                try suite.isHPKE
                ? EnvelopeVectorGenerator.pair(suite == .x25519 ? .x25519 : .p256, "raw ephemeral") : nil
            let nonce = suite.isHPKE ? nil : Array(EnvelopeVectorGenerator.seed("raw nonce").prefix(24))
            return try Envelope.seal(
                padded: padded, for: EnvelopeVectorGenerator.recipient(key), sender: nil, ephemeral: ephemeral,
                nonce: nonce
            ).bytes
        }

        mutating func addNegative() throws {
            let content = Array(Self.contents[0].utf8)
            let base = try sealRaw(Padding.pad(content, to: 256))
            let auth = try sealed(
                "", suite: .x25519, label: "device x25519", sender: "sender x25519",
                content: Self.contents[0]
            ).envelope
            let authBytes = auth.bytes
            let authHeaderCount = auth.header.bytes.count

            for length in 0..<(authHeaderCount + Envelope.tagByteCount) {
                try refuse(
                    "auth envelope truncated to \(length) bytes", .malformedEnvelope,
                    envelope: Array(authBytes.prefix(length)), trusted: ["sender x25519"])
            }
            func edited(_ bytes: [UInt8], _ edit: (inout [UInt8]) -> Void) -> [UInt8] {
                var copy = bytes
                edit(&copy)
                return copy
            }
            try refuse("version 0", .unsupportedVersion, envelope: edited(base) { $0[0] = 0 })
            try refuse("version 2", .unsupportedVersion, envelope: edited(base) { $0[0] = 2 })
            try refuse("suite 0x00", .unsupportedSuite, envelope: edited(base) { $0[1] = 0 })
            try refuse("suite 0x04", .unsupportedSuite, envelope: edited(base) { $0[1] = 4 })
            try refuse("mode 0x01", .malformedEnvelope, envelope: edited(base) { $0[2] = 1 })
            try refuse("mode 0x03 (PSK auth)", .malformedEnvelope, envelope: edited(base) { $0[2] = 3 })
            let shared = try sealRaw(Padding.pad(content, to: 256), suite: .xChaCha)
            try refuse(
                "suite 0x03 in auth mode", .malformedEnvelope, envelope: edited(shared) { $0[2] = 2 },
                suite: .xChaCha)
            try refuse("kid_len 0", .malformedEnvelope, envelope: edited(base) { $0[3] = 0 })
            try refuse(
                "kid_len 65 with 65 kid bytes present", .malformedEnvelope,
                envelope: Array(base[0..<3]) + [65] + Array(repeating: UInt8(ascii: "k"), count: 65)
                    + Array(base[15...]))
            try refuse(
                "kid with a character outside the kid alphabet", .malformedEnvelope,
                envelope: edited(base) { $0[4] = UInt8(ascii: "/") })
            try refuse(
                "skid_len 0 in auth mode", .malformedEnvelope,
                envelope: edited(authBytes) { $0[4 + auth.header.kid.utf8.count] = 0 },
                trusted: ["sender x25519"])
            try refuse(
                "enc of suite 0x02 cut to 64 bytes and no ciphertext", .malformedEnvelope,
                envelope: Array(try sealRaw(Padding.pad(content, to: 256), suite: .p256).prefix(4 + 11 + 64)),
                suite: .p256)
            try refuse("last tag byte flipped", .decryptionFailed, envelope: edited(base) { $0[$0.count - 1] ^= 1 })
            try refuse(
                "first ciphertext byte flipped", .decryptionFailed,
                envelope: edited(base) { $0[4 + 11 + 32] ^= 0x80 })
            for index in (4 + 11)..<(4 + 11 + 32) where index % 8 == 7 {
                try refuse(
                    "header byte \(index) (enc) flipped", .decryptionFailed,
                    envelope: edited(base) { $0[index] ^= 0x01 })
            }
            try refuse(
                "header byte 4 (kid) changed to another valid character", .unknownKey,
                envelope: edited(base) { $0[4] = $0[4] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A") })
            try refuse(
                "padding without the 0x80 marker", .malformedContent,
                envelope: try sealRaw(content + Array(repeating: 0, count: 256 - content.count)))
            try refuse(
                "an all-zero plaintext", .malformedContent, envelope: try sealRaw(Array(repeating: 0, count: 128)))
            try refuse("an empty plaintext", .malformedContent, envelope: try sealRaw([]))
            try refuse(
                "content that is a JSON array", .malformedContent,
                envelope: try sealRaw(Padding.pad(Array("[1,2,3]".utf8), to: 128)))
            try refuse(
                "content that is a JSON string", .malformedContent,
                envelope: try sealRaw(Padding.pad(Array("\"hello\"".utf8), to: 128)))
            try refuse(
                "content that is not JSON", .malformedContent,
                envelope: try sealRaw(Padding.pad(Array("{\"aps\":".utf8), to: 128)))
            try refuse(
                "content with invalid UTF-8", .malformedContent,
                envelope: try sealRaw(Padding.pad(Array("{\"a\":\"".utf8) + [0xC3, 0x28] + Array("\"}".utf8), to: 128)))
            try refuse(
                "X25519 enc is the all-zero low-order point", .decryptionFailed,
                envelope: Array(base[0..<15]) + Array(repeating: 0, count: 32) + Array(base[47...]))
            try refuse(
                "X25519 enc is the low-order point u = 1", .decryptionFailed,
                envelope: Array(base[0..<15]) + [1] + Array(repeating: 0, count: 31) + Array(base[47...]))
            let p256 = try sealRaw(Padding.pad(content, to: 256), suite: .p256)
            try refuse(
                "P-256 enc is a point off the curve", .decryptionFailed,
                envelope: edited(p256) { $0[4 + 11 + 64] ^= 0x01 }, suite: .p256)
            try refuse(
                "P-256 enc is a compressed point padded to 65 bytes", .decryptionFailed,
                envelope: edited(p256) { $0[4 + 11] = 0x02 }, suite: .p256)
            try refuse(
                "envelope for a kid the store does not hold", .unknownKey,
                envelope: try sealed("", suite: .x25519, label: "another device", content: "{}").envelope.bytes)
            try refuse(
                "kid of an X25519 key on a P-256 envelope", .unknownKey,
                envelope: edited(p256) { envelope in
                    let kid = (try? EnvelopeVectorGenerator.key(.x25519, "device x25519").kid) ?? ""
                    envelope.replaceSubrange(4..<15, with: Array(kid.utf8))
                }, suite: .p256)
            try refuse(
                "auth mode from a sender the store does not trust", .untrustedSender,
                envelope: authBytes, trusted: ["another sender"])
            try refuse("auth mode, and the store trusts no sender at all", .untrustedSender, envelope: authBytes)
            try refuse(
                "base mode to a store that pins senders for the suite", .authenticationRequired,
                envelope: base, trusted: ["sender x25519"])
            let device = try EnvelopeVectorGenerator.key(.xChaCha, "device xchacha")
            let impostor = PrivateKey(
                kid: device.kid, suite: .xChaCha,
                material: .shared(SecretBytes(copying: EnvelopeVectorGenerator.seed("impostor"))))
            let forged = try Envelope.seal(
                padded: Padding.pad(content, to: 256), for: .sharedKey(impostor), sender: nil, ephemeral: nil,
                nonce: Array(EnvelopeVectorGenerator.seed("impostor nonce").prefix(24)))
            try refuse(
                "shared-key envelope sealed under another secret with the device's kid", .decryptionFailed,
                envelope: forged.bytes, suite: .xChaCha)
            let sharedKidEnd = 4 + Int(shared[3])
            try refuse(
                "suite 0x03 in auth mode with a well-formed skid", .malformedEnvelope,
                envelope: Array(shared[0..<2]) + [2] + Array(shared[3..<sharedKidEnd]) + [11]
                    + Array("senderkid01".utf8) + Array(shared[sharedKidEnd...]), suite: .xChaCha)
            // The order of the checks (envelope-v1.md, "Opening and rewriting"): the first that
            // fails decides, so each of these has a second defect that a later check would see.
            try refuse("version 2, and the envelope ends after it", .unsupportedVersion, envelope: [2])
            try refuse("suite 0x04, and the envelope ends after it", .unsupportedSuite, envelope: [1, 4])
            try refuse(
                "a kid the store does not hold, and the tag flipped: the key is looked up first", .unknownKey,
                envelope: edited(base) {
                    $0[4] = $0[4] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
                    $0[$0.count - 1] ^= 1
                })
            try refuse(
                "a kid the store does not hold, from an untrusted sender: the kid comes first", .unknownKey,
                envelope: edited(authBytes) {
                    $0[4] = $0[4] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
                },
                trusted: ["another sender"])
            try refuse(
                "auth mode from an untrusted sender, and the tag flipped: the sender is checked first",
                .untrustedSender, envelope: edited(authBytes) { $0[$0.count - 1] ^= 1 }, trusted: ["another sender"])
            try refuse(
                "base mode to a store that pins senders, and the tag flipped: the mode is checked first",
                .authenticationRequired, envelope: edited(base) { $0[$0.count - 1] ^= 1 }, trusted: ["sender x25519"])
            try refuse(
                "padding whose marker is 0x81, not 0x80", .malformedContent,
                envelope: try sealRaw(Array("{\"a\":1}".utf8) + [0x81] + Array(repeating: 0, count: 120)))
            try refuse(
                "JSON, a space, then zeros without the 0x80 marker", .malformedContent,
                envelope: try sealRaw(Array("{} ".utf8) + Array(repeating: 0, count: 125)))
        }
    }
}
