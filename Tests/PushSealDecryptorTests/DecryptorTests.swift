import Foundation
import PushSealEncryptor
import PushSealPrimitives
import PushSealTestSupport
import Testing

@testable import PushSealCore
@testable import PushSealDecryptor

@Suite("Decryptor: opening and rewriting")
struct DecryptorTests {
    @Test(
        "every suite and mode decrypts, and the content is rewritten from the decrypted payload alone",
        arguments: [EnvelopeSuite.x25519, .p256, .xChaCha])
    func rewrite(_ suite: EnvelopeSuite) throws {
        let device = try Device(suite: suite)
        var options = EncryptionOptions()
        options.clearMembers = ["thread-id", "type"]
        let outer = try device.seal(samplePayload, options: options)
        let result = device.decryptor.open(outer)
        #expect(result.status == .decrypted)
        #expect(result.reason == nil)
        let content = result.notification
        #expect(content.title == "Order #1042 shipped")
        #expect(content.subtitle == "Lyon depot")
        #expect(content.body == "Arrives Thursday")
        #expect(content.locKey == "ORDER")
        #expect(content.locArgs == ["1042"])
        #expect(content.badge == 4)
        #expect(content.sound == .string("default"))
        #expect(content.threadIdentifier == "orders")
        #expect(content.categoryIdentifier == "ORDER")
        #expect(content.interruptionLevel == "time-sensitive")
        #expect(content.relevanceScore?.literal == "0.8")
        #expect(content.targetContentIdentifier == "order/1042")
        #expect(
            JSONValue.object(content.userInfo) == (try JSONParser.parse(samplePayload)),
            "userInfo is exactly the decrypted payload")
        #expect(content.userInfo["enc"] == nil, "outer members are dropped")
        #expect(result.header?.kid == device.device.kid)
    }

    @Test("a member the decrypted alert lacks is absent, never taken from the placeholder")
    func noMixing() throws {
        let device = try Device()
        var options = EncryptionOptions()
        options.placeholder = .text(title: "Placeholder title", body: "Placeholder body")
        let result = device.decryptor.open(try device.seal(#"{"aps":{"alert":"only a body"}}"#, options: options))
        #expect(result.status == .decrypted)
        #expect(result.notification.title == nil)
        #expect(result.notification.body == "only a body")
        #expect(!JSONWriter.string(.object(result.json)).contains("Placeholder"))
    }

    @Test("a payload without an envelope, or with a non-string enc, passes through as plain")
    func plain() throws {
        let device = try Device()
        for text in [#"{"aps":{"alert":"hello"}}"#, #"{"aps":{"alert":"hello"},"enc":42}"#, #"{"enc":null}"#] {
            let payload = try #require(try JSONParser.parse(text).objectValue)
            let result = device.decryptor.open(payload)
            #expect(result.status == .plain)
            #expect(result.notification.userInfo == payload)
        }
    }

    /// One real input per reason of envelope-v1.md (timeout is the session's: see ExtensionSessionTests).
    @Test("every reason is reached by a real input, and the notification stays as it arrived")
    func everyReason() throws {
        let device = try Device()
        let sealed = try device.seal(samplePayload)
        let envelope = try Envelope(base64URL: try #require(sealed["enc"]?.stringValue))
        func with(_ bytes: [UInt8]) -> JSONObject {
            var outer = sealed
            outer["enc"] = .string(Base64URL.encode(bytes))
            return outer
        }
        var bytes = envelope.bytes
        let stranger = try PrivateKey.generate(suite: .x25519)
        let unpinned = try FileKeyStore.initialize(directory: device.directory.file("unpinned"))
        try unpinned.importDeviceKey(device.device)
        var cases: [(PushSealError.Code, JSONObject, Decryptor)] = [
            (
                .malformedEnvelope,
                {
                    var o = sealed; o["enc"] = .string("not base64!"); return o
                }(), device.decryptor
            ),
            (.malformedEnvelope, with(Array(bytes.prefix(20))), device.decryptor),
            (
                .unsupportedVersion,
                with(
                    {
                        var b = bytes; b[0] = 9; return b
                    }()), device.decryptor
            ),
            (
                .unsupportedSuite,
                with(
                    {
                        var b = bytes; b[1] = 7; return b
                    }()), device.decryptor
            ),
            (
                .decryptionFailed,
                with(
                    {
                        var b = bytes; b[b.count - 1] ^= 1; return b
                    }()), device.decryptor
            ),
            (.authenticationRequired, try device.seal(samplePayload, authenticated: false), device.decryptor),
        ]
        let foreign = try Encryptor(recipient: .publicKey(try #require(stranger.publicKey)))
        cases.append(
            (
                .unknownKey,
                try #require(try JSONParser.parse(try foreign.seal(json: Array(samplePayload.utf8)).bytes).objectValue),
                device.decryptor
            ))
        cases.append((.untrustedSender, sealed, Decryptor(keyStore: unpinned)))
        let badContent = try Envelope.seal(
            padded: Padding.pad(Array("[1]".utf8), to: 128), for: device.recipient, sender: device.sender)
        cases.append((.malformedContent, with(badContent.bytes), device.decryptor))
        cases.append(
            (.keyStoreUnavailable, sealed, Decryptor(keyStore: FileKeyStore(directory: "/nonexistent/pushseal"))))
        bytes[0] = 1
        for (reason, payload, decryptor) in cases {
            let result = decryptor.open(payload)
            #expect(result.status == .degraded)
            #expect(result.reason == reason)
            #expect(result.notification == NotificationContent(payload: payload), "exactly as it arrived")
            #expect(result.notification.title == "New notification")
        }
        let reached = Set(cases.map(\.0.rawValue))
        #expect(reached.count == 9)
    }

    @Test(
        "flipping any byte of the envelope, header or ciphertext, never decrypts and never half-rewrites",
        arguments: [EnvelopeSuite.x25519, .p256, .xChaCha])
    func tamperEveryByte(_ suite: EnvelopeSuite) throws {
        let device = try Device(suite: suite)
        let sealed = try device.seal(#"{"aps":{"alert":{"title":"T","body":"B"}},"event_id":"e"}"#)
        let text = try #require(sealed["enc"]?.stringValue)
        let bytes = try #require(Base64URL.decode(text))
        let decryptor = Decryptor(keyStore: device.store, lateKeyDelay: .zero)
        var reasons: [String: Int] = [:]
        for index in bytes.indices {
            for mask: UInt8 in [0x01, 0x80] {
                var tampered = bytes
                tampered[index] ^= mask
                var outer = sealed
                outer["enc"] = .string(Base64URL.encode(tampered))
                let result = decryptor.open(outer)
                #expect(result.status == .degraded, "byte \(index) mask \(mask)")
                #expect(result.notification.userInfo == outer)
                reasons[result.reason?.rawValue ?? "none", default: 0] += 1
            }
        }
        #expect(reasons["decryption-failed", default: 0] > bytes.count)
    }

    @Test("wrong JSON types everywhere: no crash, ill-typed members are absent")
    func wrongTypes() throws {
        let device = try Device()
        let contents = [
            #"{"aps":"string"}"#, #"{"aps":[1,2]}"#,
            #"{"aps":{"alert":5,"badge":"x","sound":3,"thread-id":[],"relevance-score":"high"}}"#,
            #"{"aps":{"alert":{"title":1,"subtitle":null,"body":{},"loc-args":[1,"a"]}}}"#,
            #"{"event_id":{"nested":true}}"#, #"{}"#,
        ]
        for content in contents {
            // The encryptor would refuse most of these: seal the raw content to prove the opener copes anyway.
            let padded = Padding.pad(Array(content.utf8), to: 128)
            let envelope = try Envelope.seal(padded: padded, for: device.recipient, sender: device.sender)
            let outer = try #require(
                try JSONParser.parse(#"{"aps":{"alert":"p","mutable-content":1},"enc":"\#(envelope.base64URL)"}"#)
                    .objectValue)
            let result = device.decryptor.open(outer)
            #expect(result.status == .decrypted, "\(content)")
            #expect(result.notification.title == nil && result.notification.badge == nil)
            #expect(JSONValue.object(result.notification.userInfo) == (try JSONParser.parse(content)))
        }
        let outerOddities = [#"{"aps":5,"enc":"AQ"}"#, #"{"aps":{"alert":[]},"enc":""}"#]
        for text in outerOddities {
            let result = device.decryptor.open(try #require(try JSONParser.parse(text).objectValue))
            #expect(result.status == .degraded)
            #expect(result.reason == .malformedEnvelope)
        }
    }

    @Test("a megabyte of garbage in enc degrades as malformed-envelope")
    func garbage() throws {
        let device = try Device()
        var random = SystemRandomNumberGenerator()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        let text = String(decoding: (0..<1_000_000).map { _ in alphabet[Int(random.next() % 64)] }, as: UTF8.self)
        let result = device.decryptor.open(JSONObject([("enc", .string(text))]))
        #expect(result.status == .degraded)
        #expect([PushSealError.Code.malformedEnvelope, .unsupportedVersion, .unsupportedSuite].contains(result.reason))
    }

    @Test("a key rotated in just after the push is found by the one late re-read")
    func lateKey() throws {
        let device = try Device()
        let newKey = try PrivateKey.generate(suite: .x25519)
        let encryptor = try Encryptor(recipient: .publicKey(try #require(newKey.publicKey)), sender: device.sender)
        let outer = try #require(
            try JSONParser.parse(try encryptor.seal(json: Array(samplePayload.utf8)).bytes).objectValue)
        let store = device.store
        let importer = Thread {
            Thread.sleep(forTimeInterval: 0.05)
            _ = try? store.importDeviceKey(newKey)
        }
        importer.start()
        let result = Decryptor(keyStore: device.store, lateKeyDelay: .milliseconds(400)).open(outer)
        #expect(result.status == .decrypted)

        let missing = try PrivateKey.generate(suite: .x25519)
        let lost = try Encryptor(recipient: .publicKey(try #require(missing.publicKey)), sender: device.sender)
        let lostOuter = try #require(
            try JSONParser.parse(try lost.seal(json: Array(samplePayload.utf8)).bytes).objectValue)
        let noTime = Decryptor(keyStore: device.store, lateKeyDelay: .seconds(10))
            .open(lostOuter, deadline: ContinuousClock.now.advanced(by: .milliseconds(100)))
        #expect(noTime.reason == .unknownKey, "no retry when the deadline does not allow it")
    }

    @Test("rotation while decrypting: pushes sealed for older keys keep opening")
    func rotationWhileDecrypting() throws {
        let device = try Device()
        let sealed = try device.seal(samplePayload)
        let store = device.store
        let stop = Protected(false)
        let rotator = Thread {
            while !stop.withLock({ $0 }) { _ = try? store.rotate() }
        }
        rotator.start()
        defer { stop.withLock { $0 = true } }
        let decryptor = Decryptor(keyStore: device.store)
        for _ in 0..<200 {
            let result = decryptor.open(sealed)
            #expect(result.status == .decrypted, "\(result.reason?.rawValue ?? "")")
        }
    }
}
