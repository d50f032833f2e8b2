import PushSealCore
import Testing

@testable import PushSealEncryptor

/// Keys for one suite and mode, and the ring that opens what they seal.
struct SealingSetup: Sendable, CustomTestStringConvertible {
    let suite: EnvelopeSuite
    let authenticated: Bool
    let device: PrivateKey
    let sender: PrivateKey?

    static let all: [SealingSetup] = [EnvelopeSuite.x25519, .p256, .xChaCha].flatMap { suite in
        (suite.isHPKE ? [false, true] : [false]).compactMap { auth in
            guard let device = try? PrivateKey.generate(suite: suite) else { return nil }
            let sender = auth ? try? PrivateKey.generate(suite: suite) : nil
            return SealingSetup(suite: suite, authenticated: auth, device: device, sender: sender)
        }
    }

    var recipient: Recipient { device.publicKey.map { .publicKey($0) } ?? .sharedKey(device) }
    var ring: KeyRing { KeyRing(deviceKeys: [device], trustedSenders: sender?.publicKey.map { [$0] } ?? []) }
    var testDescription: String { "\(suite.name) \(authenticated ? "auth" : "base")" }

    func encryptor(_ options: EncryptionOptions = EncryptionOptions()) throws -> Encryptor {
        try Encryptor(recipient: recipient, sender: sender, options: options)
    }
}

let orderPayload = #"""
    {"aps":{"alert":{"title":"Order #1042 shipped","subtitle":"Arrives Thursday","body":"Your parcel left the Lyon depot."},"badge":2,"sound":"default","thread-id":"orders","interruption-level":"time-sensitive"},"type":"order","order_id":1042,"event_id":"evt_7f3a","secret_note":"gate code 4471"}
    """#

func parseObject(_ bytes: [UInt8]) throws -> JSONObject {
    try #require(try JSONParser.parse(bytes).objectValue)
}

@Suite("Encryptor")
struct EncryptorTests {
    @Test("seals for every suite and mode; the core opens the exact payload", arguments: SealingSetup.all)
    func roundTrip(_ setup: SealingSetup) throws {
        let sealed = try setup.encryptor().seal(json: Array(orderPayload.utf8))
        let outer = try parseObject(sealed.bytes)
        let enc = try #require(outer["enc"]?.stringValue)
        let opened = try Envelope(base64URL: enc).open(with: setup.ring)
        #expect(JSONValue.object(opened.content) == (try JSONParser.parse(orderPayload)))
        #expect(opened.header.mode == (setup.authenticated ? .auth : .base))
        #expect(opened.header.skid == setup.sender?.kid)
        #expect(opened.header.kid == setup.device.kid)
    }

    @Test("the outer payload holds the placeholder, mutable-content 1 and the envelope, and nothing sealed")
    func outerShape() throws {
        let setup = try #require(SealingSetup.all.first)
        let sealed = try setup.encryptor().seal(json: Array(orderPayload.utf8))
        let outer = try parseObject(sealed.bytes)
        #expect(outer.members.map(\.name) == ["aps", "enc"])
        let aps = try #require(outer["aps"]?.objectValue)
        #expect(aps.members.map(\.name) == ["alert", "mutable-content"])
        #expect(aps["mutable-content"] == .number(JSONNumber(1)))
        #expect(
            aps["alert"] == (try JSONParser.parse(#"{"title":"New notification","body":"Open the app to view it."}"#)))
        let enc = try #require(outer["enc"]?.stringValue)
        #expect(
            enc.utf8.allSatisfy { byte in
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: "_")
            })
        let text = sealed.json
        for secret in ["Order #1042", "Lyon", "gate code", "evt_7f3a", "orders", "time-sensitive"] {
            #expect(!text.contains(secret), "\(secret) leaked into the outer payload")
        }
    }

    @Test("--clear copies the named aps and custom members in clear, and only those")
    func clearMembers() throws {
        let setup = try #require(SealingSetup.all.first)
        var options = EncryptionOptions()
        options.clearMembers = ["thread-id", "type", "badge", "absent-member"]
        options.placeholder = .localized(key: "NEW_MESSAGE")
        let outer = try parseObject(try setup.encryptor(options).seal(json: Array(orderPayload.utf8)).bytes)
        let aps = try #require(outer["aps"]?.objectValue)
        #expect(aps.members.map(\.name) == ["alert", "mutable-content", "thread-id", "badge"])
        #expect(aps["alert"] == (try JSONParser.parse(#"{"loc-key":"NEW_MESSAGE"}"#)))
        #expect(aps["thread-id"] == .string("orders"))
        #expect(outer.members.map(\.name) == ["aps", "type", "enc"])
        #expect(outer["type"] == .string("order"))
    }

    @Test("background pushes carry content-available and no alert; VoIP pushes carry neither")
    func pushTypes() throws {
        let setup = try #require(SealingSetup.all.first)
        var options = EncryptionOptions()
        options.pushType = .background
        let background = try parseObject(
            try setup.encryptor(options).seal(json: Array(#"{"aps":{"content-available":1},"sync":"inbox"}"#.utf8))
                .bytes)
        #expect(background["aps"] == (try JSONParser.parse(#"{"content-available":1}"#)))
        options.pushType = .voip
        let voip = try parseObject(try setup.encryptor(options).seal(json: Array(#"{"caller":"Alice"}"#.utf8)).bytes)
        #expect(voip.members.map(\.name) == ["enc"])
    }

    @Test("sealing from many tasks at once with one shared encryptor")
    func concurrentUse() async throws {
        let setup = try #require(SealingSetup.all.first)
        let encryptor = try setup.encryptor()
        let ring = setup.ring
        let opened = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let sealed = try encryptor.seal(json: Array(#"{"aps":{"alert":"n\#(index)"}}"#.utf8))
                    let enc = try parseObject(sealed.bytes)["enc"]?.stringValue ?? ""
                    let content = try Envelope(base64URL: enc).open(with: ring).content
                    return content["aps"]?.objectValue?["alert"] == .string("n\(index)")
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(opened == 200)
    }

    @Test("a sender of another suite, or with a shared key, is refused")
    func senderMismatch() throws {
        let device = try PrivateKey.generate(suite: .x25519)
        let wrongSender = try PrivateKey.generate(suite: .p256)
        #expect(throws: PushSealError(.invalidKey, "")) {
            try Encryptor(recipient: .publicKey(try #require(device.publicKey)), sender: wrongSender)
        }
        let shared = try PrivateKey.generate(suite: .xChaCha)
        #expect(throws: PushSealError(.invalidKey, "")) {
            try Encryptor(recipient: .sharedKey(shared), sender: try PrivateKey.generate(suite: .x25519))
        }
    }
}
