import Foundation
import PushSealPrimitives
import PushSealTestSupport

@testable import PushSealCore

/// Builds `Tests/PushSealCoreTests/Vectors/fetch-v1.json` (envelope-v1.md, "Fetched content")
/// from fixed inputs, byte for byte the same at each run: keys from RFC 9180's `DeriveKeyPair`
/// over fixed labels, fixed ephemeral keys, salts and capabilities. Each case is a push as it
/// arrives, the request an opener must make (or none), the answer it gets, and what it shows.
///
/// Run `PUSHSEAL_WRITE_VECTORS=1 swift test --filter writeFetchVectors` to rewrite the file after
/// a deliberate change; the other tests only read it.
enum FetchVectorGenerator {
    /// The time every case is opened at, in UNIX seconds.
    static let now: Int64 = 1_796_000_000
    static let placeholder = #"{"title":"New notification","body":"Open the app to view it."}"#

    static func seed(_ label: String) -> [UInt8] { SHA256.hash(Array("pushseal fetch vectors: \(label)".utf8)) }

    static func key(_ kem: HPKE.KEM, _ suite: EnvelopeSuite, _ label: String) throws -> PrivateKey {
        let pair = try kem.deriveKeyPair(ikm: seed(label))
        return PrivateKey(
            kid: KeyID.derived(fromPublicKey: pair.publicKey.serialized), suite: suite, material: .pair(pair))
    }

    /// The device's envelope key, the gateway's sender key, and the device's Web Push receiver.
    static func keys() throws -> (device: PrivateKey, sender: PrivateKey, receiver: WebPushReceiver) {
        (
            try key(.x25519, .x25519, "device"), try key(.x25519, .x25519, "sender"),
            try WebPushReceiver(
                privateKey: try key(.p256, .p256, "webpush receiver"), authSecret: Array(seed("auth").prefix(16)))
        )
    }

    static func quoted(_ text: String) -> String { JSONWriter.string(.string(text)) }

    /// The file.
    static func file() throws -> JSONObject {
        let (device, sender, receiver) = try keys()
        var builder = Builder(device: device, sender: sender, receiver: receiver)
        try builder.addCases()
        return JSONObject([
            (
                "description",
                .string(
                    "PushSeal fetched content (envelope-v1.md, \"Fetched content\"). Open each case's payload at `now` with a store holding `keys.device` (and `keys.sender` trusted) and `keys.webpush_receiver`; the decrypted content is a reference. `request` is the one GET the opener must make (null: none, the reference is refused first); `answer` is what it gets back (`content_length` null: no Content-Length, the body until the connection closes). Then expect `status` and `reason`, and for a decrypted case `fetched`, `format` (webpush, or absent), and the notification's `title` and `body`. `references` pins the reference's own checks: each text as the `fetch` member, and the JSON path its refusal names first (null: accepted)."
                )
            ),
            ("now", .number(JSONNumber(Int(now)))),
            (
                "keys",
                .object(
                    JSONObject([
                        ("device", .object(device.privateJWK)),
                        ("sender", .object(sender.publicKey?.jwk ?? JSONObject())),
                        ("webpush_receiver", .object(receiver.json)),
                    ]))
            ),
            ("references", .array(builder.referenceCases())),
            ("cases", .array(builder.cases)),
        ])
    }

    struct Builder {
        let device: PrivateKey
        let sender: PrivateKey
        let receiver: WebPushReceiver
        var cases: [JSONValue] = []
        var ephemeralCount = 0

        init(device: PrivateKey, sender: PrivateKey, receiver: WebPushReceiver) {
            self.device = device
            self.sender = sender
            self.receiver = receiver
        }

        /// `content` sealed to the device by the sender, with a fixed ephemeral key.
        mutating func envelope(_ content: String) throws -> Envelope {
            ephemeralCount += 1
            let bytes = Array(content.utf8)
            let padded = Padding.pad(
                bytes,
                to: Padding.paddedLength(contentCount: bytes.count, block: 128, maximum: 65_536) ?? bytes.count + 1)
            guard let publicKey = device.publicKey else {
                throw PushSealError(.invalidKey, "the device key has no public key")
            }
            return try Envelope.seal(
                padded: padded, for: .publicKey(publicKey), sender: sender,
                ephemeral: try HPKE.KEM.x25519.deriveKeyPair(ikm: seed("ephemeral \(ephemeralCount)")), nonce: nil)
        }

        /// The reference JSON text of `content` at `label`'s URL, edited by `edit` (member, raw JSON).
        func reference(
            for content: [UInt8], label: String, format: String, expires: Int64 = now + 600,
            edit: [(String, String)] = []
        ) -> (text: String, url: String, capability: String) {
            let url = "https://push.example.com/v1/fetch/\(Base64URL.encode(Array(seed("id \(label)").prefix(16))))"
            let capability = Base64URL.encode(seed("capability \(label)"))
            var members: [(String, String)] = [
                ("url", quoted(url)), ("capability", quoted(capability)), ("expires", "\(expires)"),
                ("size", "\(content.count)"), ("sha256", quoted(Base64URL.encode(SHA256.hash(content)))),
                ("format", quoted(format)),
            ]
            for (name, value) in edit {
                if let index = members.firstIndex(where: { $0.0 == name }) {
                    members[index].1 = value
                } else {
                    members.append((name, value))
                }
            }
            return ("{" + members.map { "\(quoted($0.0)):\($0.1)" }.joined(separator: ",") + "}", url, capability)
        }

        /// A case: the push carrying `referenceText`, the request expected, the answer, the outcome.
        mutating func add(
            _ comment: String, referenceText: String, request: (url: String, capability: String)?,
            answer: (status: Int, contentLength: Int?, body: [UInt8])?, outcome: [(String, JSONValue)]
        ) throws {
            let inner = #"{"aps":{"alert":\#(placeholder)},"fetch":\#(referenceText)}"#
            let enc = try envelope(inner).base64URL
            let payload = #"{"aps":{"alert":\#(placeholder),"mutable-content":1},"enc":"\#(enc)"}"#
            var object = JSONObject([
                ("comment", .string(comment)),
                ("payload", try JSONParser.parse(Array(payload.utf8))),
            ])
            object["request"] =
                request.map {
                    .object(
                        JSONObject([
                            ("url", .string($0.url)), ("authorization", .string("Bearer \($0.capability)")),
                        ]))
                } ?? .null
            object["answer"] =
                answer.map {
                    .object(
                        JSONObject([
                            ("status", .number(JSONNumber($0.status))),
                            ("content_length", $0.contentLength.map { .number(JSONNumber($0)) } ?? .null),
                            ("body", .string(Base64URL.encode($0.body))),
                        ]))
                } ?? .null
            for (name, value) in outcome { object[name] = value }
            cases.append(.object(object))
        }

        static func degraded(_ reason: String) -> [(String, JSONValue)] {
            [("status", .string("degraded")), ("reason", .string(reason))]
        }

        mutating func addCases() throws {
            let long = String(repeating: "The parcel left Lyon this morning. ", count: 160)
            let fetchedContent =
                #"{"aps":{"alert":{"title":"Order #1042","body":"\#(long)"}},"event_id":"evt-fetched-1"}"#
            let fetched = try envelope(fetchedContent).bytes
            let good = reference(for: fetched, label: "envelope", format: "envelope")
            try add(
                "an envelope of 5.7 KB, fetched and opened", referenceText: good.text,
                request: (good.url, good.capability), answer: (200, fetched.count, fetched),
                outcome: [
                    ("status", .string("decrypted")), ("reason", .null), ("fetched", .bool(true)),
                    ("title", .string("Order #1042")), ("body", .string(long)),
                ])
            try add(
                "the same, its body until the connection closes (no Content-Length)", referenceText: good.text,
                request: (good.url, good.capability), answer: (200, nil, fetched),
                outcome: [
                    ("status", .string("decrypted")), ("reason", .null), ("fetched", .bool(true)),
                    ("title", .string("Order #1042")), ("body", .string(long)),
                ])

            let mastodon = #"{"title":"Ada mentioned you","body":"\#(String(long.prefix(3_000)))"}"#
            let salt = (0..<16).map { UInt8(0x40 + $0) }
            let message = try WebPushMessage.seal(
                Array(mastodon.utf8), for: try receiver.subscription(endpoint: "https://push.example.com/v1/webpush/x"),
                recordPlaintextCount: mastodon.utf8.count + 1,
                sender: try key(.p256, .p256, "application server"), salt: salt)
            let forwarded = reference(for: message, label: "webpush", format: "webpush")
            try add(
                "a Web Push message of \(message.count) bytes, fetched and opened with the receiver",
                referenceText: forwarded.text, request: (forwarded.url, forwarded.capability),
                answer: (200, message.count, message),
                outcome: [
                    ("status", .string("decrypted")), ("reason", .null), ("fetched", .bool(true)),
                    ("format", .string("webpush")), ("title", .string("Ada mentioned you")),
                    ("body", .string(String(long.prefix(3_000)))),
                ])

            let expired = reference(for: fetched, label: "expired", format: "envelope", expires: now)
            try add(
                "expires is now: no request", referenceText: expired.text, request: nil, answer: nil,
                outcome: Self.degraded("fetch-expired"))
            for (status, reason) in [
                (404, "fetch-expired"), (410, "fetch-expired"), (500, "fetch-failed"),
                (302, "fetch-failed"), (204, "fetch-failed"),
            ] {
                try add(
                    "the server answers \(status)", referenceText: good.text, request: (good.url, good.capability),
                    answer: (status, 0, []), outcome: Self.degraded(reason))
            }
            try add(
                "Content-Length one over the size", referenceText: good.text, request: (good.url, good.capability),
                answer: (200, fetched.count + 1, fetched + [0]), outcome: Self.degraded("fetch-integrity"))
            try add(
                "one byte more than the size, no Content-Length", referenceText: good.text,
                request: (good.url, good.capability), answer: (200, nil, fetched + [0]),
                outcome: Self.degraded("fetch-integrity"))
            try add(
                "one byte fewer, no Content-Length", referenceText: good.text, request: (good.url, good.capability),
                answer: (200, nil, Array(fetched.dropLast())), outcome: Self.degraded("fetch-integrity"))
            var flipped = fetched
            flipped[flipped.count - 1] ^= 1
            try add(
                "the size, another SHA-256", referenceText: good.text, request: (good.url, good.capability),
                answer: (200, flipped.count, flipped), outcome: Self.degraded("fetch-integrity"))
            let insecure = reference(
                for: fetched, label: "insecure", format: "envelope",
                edit: [("url", quoted("http://push.example.com/v1/fetch/x"))])
            try add(
                "an http URL: the reference is refused before any request", referenceText: insecure.text,
                request: nil, answer: nil, outcome: Self.degraded("malformed-content"))
            let nested = try envelope(#"{"aps":{"alert":"again"},"fetch":\#(good.text)}"#).bytes
            let again = reference(for: nested, label: "nested", format: "envelope")
            try add(
                "a fetched envelope that refers again", referenceText: again.text,
                request: (again.url, again.capability), answer: (200, nested.count, nested),
                outcome: Self.degraded("malformed-content"))
            let misread = reference(for: message, label: "misread", format: "envelope")
            try add(
                "a Web Push message named an envelope: its first byte (0x40) is the version",
                referenceText: misread.text, request: (misread.url, misread.capability),
                answer: (200, message.count, message), outcome: Self.degraded("unsupported-version"))
        }

        /// The reference's own checks, each an edit of a valid reference.
        func referenceCases() -> [JSONValue] {
            let content: [UInt8] = Array("x".utf8)
            let base = reference(for: content, label: "rules", format: "envelope")
            let cases: [(String, [(String, String)], String?)] = [
                ("valid", [], nil),
                ("the scheme in capitals", [("url", quoted("HTTPS://push.example.com/v1/fetch/a"))], nil),
                ("the largest size", [("size", "65536")], nil),
                ("an unknown member comes first", [("url", quoted("http://x")), ("note", "1")], "$.fetch.note"),
                ("an http url", [("url", quoted("http://push.example.com/v1/fetch/a"))], "$.fetch.url"),
                ("a url with user info", [("url", quoted("https://u@push.example.com/a"))], "$.fetch.url"),
                ("a url that is not a string", [("url", "1")], "$.fetch.url"),
                (
                    "the url comes before the capability",
                    [("url", quoted("http://x")), ("capability", quoted("AAAA"))], "$.fetch.url"
                ),
                (
                    "a capability of 31 bytes", [("capability", quoted(Base64URL.encode(Array(seed("c").prefix(31)))))],
                    "$.fetch.capability"
                ),
                (
                    "a capability with padding", [("capability", quoted(Base64URL.encode(seed("c")) + "="))],
                    "$.fetch.capability"
                ),
                ("expires of 0", [("expires", "0")], "$.fetch.expires"),
                ("expires with a fraction", [("expires", "1796000600.0")], "$.fetch.expires"),
                ("expires in a string", [("expires", quoted("1796000600"))], "$.fetch.expires"),
                ("expires comes before the size", [("expires", "-1"), ("size", "0")], "$.fetch.expires"),
                ("a size of 0", [("size", "0")], "$.fetch.size"),
                ("a size over 64 KiB", [("size", "65537")], "$.fetch.size"),
                ("a size with an exponent", [("size", "1e0")], "$.fetch.size"),
                (
                    "a sha256 of 31 bytes", [("sha256", quoted(Base64URL.encode(Array(seed("s").prefix(31)))))],
                    "$.fetch.sha256"
                ),
                ("a format in capitals", [("format", quoted("WebPush"))], "$.fetch.format"),
                ("a format of its own", [("format", quoted("media"))], "$.fetch.format"),
            ]
            return cases.map { comment, edits, path in
                let text = reference(for: content, label: "rules", format: "envelope", edit: edits).text
                return .object(
                    JSONObject([
                        ("comment", .string(comment)), ("reference_text", .string(edits.isEmpty ? base.text : text)),
                        ("refused_at", path.map { .string($0) } ?? .null),
                    ]))
            }
        }
    }
}
