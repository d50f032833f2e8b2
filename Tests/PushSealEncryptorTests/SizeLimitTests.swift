import PushSealCore
import Testing

@testable import PushSealEncryptor

@Suite("Size limit and truncation")
struct SizeLimitTests {
    static func payload(body: String) -> JSONObject {
        JSONObject([
            (
                "aps",
                .object(
                    JSONObject([("alert", .object(JSONObject([("title", .string("Note")), ("body", .string(body))])))]))
            ), ("id", .number(JSONNumber(7))),
        ])
    }

    static func body(_ payload: JSONObject) -> String? {
        payload["aps"]?.objectValue?["alert"]?.objectValue?["body"]?.stringValue
    }

    @Test("every body length either fits within 4096 bytes or fails with both sizes", arguments: SealingSetup.all)
    func limit(_ setup: SealingSetup) throws {
        let encryptor = try setup.encryptor()
        var largestFitting = 0
        for length in stride(from: 2_600, through: 3_200, by: 7) {
            do {
                let sealed = try encryptor.seal(Self.payload(body: String(repeating: "a", count: length)))
                #expect(sealed.byteCount <= 4096)
                largestFitting = length
            } catch let error as PushSealError {
                #expect(error.code == .payloadTooLarge)
                #expect(error.detail.contains("4096"))
                #expect(error.detail.contains("bytes, over"))
            }
        }
        #expect(largestFitting > 2_600, "some payloads of this size should fit")
        #expect(largestFitting < 3_200, "some payloads of this size should not")
    }

    @Test("VoIP pushes have 5120 bytes")
    func voipLimit() throws {
        let setup = try #require(SealingSetup.all.first)
        var options = EncryptionOptions()
        options.pushType = .voip
        let big = JSONObject([
            ("aps", .object(JSONObject([("badge", .number(JSONNumber(1)))]))),
            ("caller", .string(String(repeating: "v", count: 3_500))),
        ])
        #expect(throws: PushSealError(.payloadTooLarge, "")) { try setup.encryptor().seal(big) }
        let sealed = try setup.encryptor(options).seal(big)
        #expect(sealed.byteCount > 4096 && sealed.byteCount <= 5120)
    }

    struct LongBody: Sendable, CustomTestStringConvertible {
        let name: String
        let text: String
        var testDescription: String { name }
    }

    static let bodies: [LongBody] = [
        LongBody(name: "two-byte letters", text: String(repeating: "é", count: 3_000)),
        LongBody(name: "family emoji (ZWJ sequences)", text: String(repeating: "👨‍👩‍👧‍👦", count: 400)),
        LongBody(name: "Japanese", text: String(repeating: "日本語のテキスト", count: 300)),
        LongBody(name: "characters JSON escapes", text: String(repeating: "a\"b\\c\n", count: 900)),
        LongBody(name: "flags and combining accents", text: String(repeating: "🇫🇷e\u{301}", count: 700)),
    ]

    @Test("--truncate cuts the body on a character boundary, ends it in …, and fits", arguments: bodies)
    func truncation(_ longBody: LongBody) throws {
        let original = longBody.text
        for setup in SealingSetup.all {
            var options = EncryptionOptions()
            options.overflow = .truncateBody
            let sealed = try setup.encryptor(options).seal(Self.payload(body: original))
            #expect(sealed.bodyTruncated)
            #expect(sealed.byteCount <= 4096)
            let enc = try #require(try parseObject(sealed.bytes)["enc"]?.stringValue)
            let content = try Envelope(base64URL: enc).open(with: setup.ring).content
            let body = try #require(Self.body(content))
            #expect(body.hasSuffix("…"))
            let kept = body.dropLast()
            #expect(original.hasPrefix(kept), "the kept text is a prefix of the original")
            let keptCharacters = kept.count
            #expect(Array(original.prefix(keptCharacters)) == Array(kept), "no grapheme was split")
            let keptBytes = kept.reduce(0) { $0 + BodyTruncation.escapedSize($1) }
            #expect(keptBytes > 2_700, "truncation keeps most of the room the limit leaves")
            #expect(content["id"] == .number(JSONNumber(7)), "other members are untouched")
        }
    }

    @Test("a payload that fits is never truncated; one with no body to cut still fails")
    func truncationLimits() throws {
        let setup = try #require(SealingSetup.all.first)
        var options = EncryptionOptions()
        options.overflow = .truncateBody
        let small = try setup.encryptor(options).seal(Self.payload(body: "short"))
        #expect(!small.bodyTruncated)
        let noBody = JSONObject([
            ("aps", .object(JSONObject([("alert", .object(JSONObject([("title", .string("t"))])))]))),
            ("blob", .string(String(repeating: "x", count: 4_000))),
        ])
        #expect(throws: PushSealError(.payloadTooLarge, "")) { try setup.encryptor(options).seal(noBody) }
    }

    @Test("a string alert is truncated too")
    func stringAlert() throws {
        let setup = try #require(SealingSetup.all.first)
        var options = EncryptionOptions()
        options.overflow = .truncateBody
        let payload = JSONObject([
            ("aps", .object(JSONObject([("alert", .string(String(repeating: "ß", count: 2_500)))])))
        ])
        let sealed = try setup.encryptor(options).seal(payload)
        let enc = try #require(try parseObject(sealed.bytes)["enc"]?.stringValue)
        let content = try Envelope(base64URL: enc).open(with: setup.ring).content
        #expect(content["aps"]?.objectValue?["alert"]?.stringValue?.hasSuffix("ß…") == true)
    }

    @Test("APNs request headers: defaults per push type, validation of each option")
    func requestHeaders() throws {
        let setup = try #require(SealingSetup.all.first)
        let sealed = try setup.encryptor().seal(Self.payload(body: "hi"))
        let request = try APNsRequest(
            payload: sealed, pushType: .alert,
            options: APNsRequestOptions(topic: "com.example.app", collapseID: "c1", expiration: 1_800_000_000))
        #expect(
            request.headers.map(\.name) == [
                "apns-push-type", "apns-topic", "apns-priority", "apns-expiration", "apns-collapse-id",
            ])
        #expect(request.headers.map(\.value) == ["alert", "com.example.app", "10", "1800000000", "c1"])
        let json = try parseObject(request.json)
        #expect(json["payload"] == .object(try parseObject(sealed.bytes)))
        let background = try APNsRequest(
            payload: sealed, pushType: .background, options: APNsRequestOptions(topic: "com.example.app"))
        #expect(background.headers[2].value == "5")
        #expect(throws: PushSealError(.invalidPayload, "")) {
            try APNsRequest(
                payload: sealed, pushType: .background,
                options: APNsRequestOptions(topic: "com.example.app", priority: 10))
        }
        #expect(throws: PushSealError(.invalidPayload, "")) {
            try APNsRequest(payload: sealed, pushType: .alert, options: APNsRequestOptions(topic: ""))
        }
        #expect(throws: PushSealError(.invalidPayload, "")) {
            try APNsRequest(
                payload: sealed, pushType: .alert,
                options: APNsRequestOptions(topic: "com.example.app", collapseID: String(repeating: "c", count: 65)))
        }
        #expect(throws: PushSealError(.invalidPayload, "")) {
            try APNsRequest(
                payload: sealed, pushType: .alert, options: APNsRequestOptions(topic: "com.example.app", priority: 7))
        }
    }
}
