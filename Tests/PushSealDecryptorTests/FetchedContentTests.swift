import Foundation
import PushSealEncryptor
import PushSealPrimitives
import PushSealTestSupport
import Testing

@testable import PushSealCore
@testable import PushSealDecryptor

/// Content fetched because it did not fit the push (envelope-v1.md, "Fetched content"): a sealed
/// reference opened, the content fetched from a local HTTPS server that serves it to its
/// capability alone (`media_server.py`'s `/bearer/`), checked and opened by its format; every
/// failure degrading to the placeholder with its reason, in the contract's order.
@Suite("Decryptor: fetched content", .serialized)
struct FetchedContentTests {
    /// A phone with envelope keys and a Web Push receiver, and a server of content to fetch.
    final class Setup: @unchecked Sendable {
        let phone: Device
        let keys: WebPushKeys
        let served = TemporaryDirectory()
        let server: MediaServer

        init() throws {
            phone = try Device()
            keys = try phone.store.webPushKeys()
            server = try MediaServer(mediaRoot: served.path, in: served)
        }

        /// A push whose sealed content refers to `content`, served as `name` at `path` (`bearer`
        /// checks the capability); `edit` changes the reference's members before it is sealed.
        func push(
            _ content: [UInt8], format: FetchReference.Format, name: String, path: String = "bearer",
            expires: Int64 = Int64(Date().timeIntervalSince1970) + 600, served servedBytes: [UInt8]? = nil,
            edit: (inout JSONObject) -> Void = { _ in }
        ) throws -> JSONObject {
            let (reference, _) = try FetchReference.make(
                url: "\(server.url)/\(path)/\(name)", expires: expires, content: content, format: format)
            var json = reference.json
            try Data(servedBytes ?? content).write(to: URL(fileURLWithPath: served.file(name)))
            try Data((json["capability"]?.stringValue ?? "").utf8).write(
                to: URL(fileURLWithPath: served.file(name + ".capability")))
            edit(&json)
            let inner = JSONObject([
                ("aps", .object(JSONObject([("alert", .string("an older extension shows this"))]))),
                ("fetch", .object(json)),
            ])
            return try phone.seal(JSONWriter.string(.object(inner)))
        }

        /// `content` as a binary envelope sealed to the phone.
        func envelope(_ content: String) throws -> [UInt8] {
            let bytes = Array(content.utf8)
            return try Envelope.seal(
                padded: Padding.pad(bytes, to: bytes.count + 1), for: phone.recipient, sender: phone.sender
            ).bytes
        }

        /// `content` as a Web Push message to the phone's receiver.
        func message(_ content: String) throws -> [UInt8] {
            try WebPushMessage.seal(
                Array(content.utf8),
                for: try WebPushSubscription(endpoint: "https://relay.example/x", p256dh: keys.p256dh, auth: keys.auth))
        }

        func open(_ payload: JSONObject, local: Bool = true, seconds: Double = 10) -> DecryptionResult {
            Decryptor(
                keyStore: phone.store, ledger: phone.store.ledger,
                fetcher: ContentFetcher(caFile: server.certificate, allowsLocalDestinations: local)
            ).open(payload, deadline: ContinuousClock.now.advanced(by: .milliseconds(Int(seconds * 1000))))
        }
    }

    static let long = String(repeating: "Lorem ipsum dolor sit amet. ", count: 300)

    @Test("an envelope of 8 KB and a Web Push message are fetched, checked and opened; the ledger sees a repeat once")
    func opens() throws {
        let setup = try Setup()
        let content = #"{"aps":{"alert":{"title":"Long","body":"\#(Self.long)"}},"event_id":"evt-long"}"#
        let push = try setup.push(try setup.envelope(content), format: .envelope, name: "long.env")
        let opened = setup.open(push)
        #expect(opened.status == .decrypted && opened.fetched, "\(opened.json)")
        #expect(opened.notification.body == Self.long && opened.notification.title == "Long")
        #expect(opened.notification.userInfo["fetch"] == nil, "nothing of the reference mixes in")
        #expect(opened.header?.kid == setup.phone.device.kid)
        #expect(setup.open(push).duplicate, "the same push again is a repeat")

        let message = try setup.message(#"{"title":"Ada","body":"\#(String(Self.long.prefix(3_000)))"}"#)
        let forwarded = setup.open(try setup.push(message, format: .webPush, name: "long.msg"))
        #expect(forwarded.status == .decrypted && forwarded.fetched, "\(forwarded.json)")
        #expect(forwarded.webPushReceiver == setup.keys.kid && forwarded.notification.title == "Ada")
        #expect(forwarded.json["fetched"] == .bool(true) && forwarded.json["format"] == .string("webpush"))
    }

    @Test("each failure degrades to the placeholder with its reason: expiry, the answer, the bytes, the format")
    func failures() throws {
        let setup = try Setup()
        let message = try setup.message(#"{"title":"t","body":"b"}"#)
        let placeholder = "Open the app to view it."
        let cases: [(String, JSONObject, Bool, PushSealError.Code)] = [
            (
                "past expires: not even asked",
                try setup.push(message, format: .webPush, name: "a", expires: Int64(Date().timeIntervalSince1970) - 1),
                true,
                .fetchExpired
            ),
            (
                "a wrong capability: 404",
                try setup.push(message, format: .webPush, name: "b") {
                    $0["capability"] = .string(Base64URL.encode([UInt8](repeating: 9, count: 32)))
                }, true,
                .fetchExpired
            ),
            (
                "a redirect is not followed",
                try setup.push(message, format: .webPush, name: "c", path: "redirect-bearer"), true, .fetchFailed
            ),
            (
                "a local address without leave", try setup.push(message, format: .webPush, name: "d"), false,
                .fetchFailed
            ),
            (
                "another SHA-256",
                try setup.push(message, format: .webPush, name: "e", served: message.map { $0 ^ 1 }), true,
                .fetchIntegrity
            ),
            (
                "more bytes than the size, no Content-Length",
                try setup.push(message, format: .webPush, name: "f", path: "longer"), true, .fetchIntegrity
            ),
            (
                "Content-Length over the size",
                try setup.push(message, format: .webPush, name: "g", path: "lying-length"), true, .fetchIntegrity
            ),
            (
                "the reference's URL is http",
                try setup.push(message, format: .webPush, name: "h") { $0["url"] = .string("http://127.0.0.1/x") },
                true, .malformedContent
            ),
            (
                "an unknown member",
                try setup.push(message, format: .webPush, name: "i") { $0["note"] = .string("x") }, true,
                .malformedContent
            ),
            (
                "bytes that are no envelope: its rules give the reason",
                try setup.push([7] + message, format: .envelope, name: "j"), true, .unsupportedVersion
            ),
            (
                "a fetched envelope that refers again",
                try setup.push(
                    try setup.envelope(#"{"fetch":{}}"#), format: .envelope, name: "k"), true, .malformedContent
            ),
        ]
        for (comment, push, local, reason) in cases {
            let result = setup.open(push, local: local)
            #expect(result.status == .degraded && result.reason == reason, "\(comment): \(result.json)")
            #expect(result.notification.body == placeholder && !result.fetched, "\(comment)")
        }
        let stalled = setup.open(
            try setup.push(message, format: .webPush, name: "l", path: "stall"), seconds: 3)
        #expect(stalled.reason == .timeout, "a fetch that does not finish before the margin: \(stalled.json)")
    }

    @Test("a reference is read member by member in the contract's order; its description never shows the capability")
    func referenceRules() throws {
        let (reference, hash) = try FetchReference.make(
            url: "https://push.example.com/v1/fetch/abc", expires: 1_796_000_000, content: [1, 2, 3], format: .webPush)
        let json = reference.json
        let capability = try #require(json["capability"]?.stringValue)
        #expect(!"\(reference)".contains(capability))
        #expect(FetchReference.capabilityHash(bearer: capability) == hash)
        #expect(reference.authorization == "Bearer \(capability)")
        #expect(throws: PushSealError(.fetchIntegrity, "")) { try reference.check([1, 2]) }
        #expect(throws: PushSealError(.fetchIntegrity, "")) { try reference.check([1, 2, 4]) }
        try reference.check([1, 2, 3])
        let edits: [(String, JSONValue?, String?)] = [
            ("url", .string("https://push.example.com:0/x"), "$.fetch.url"),
            ("capability", .string(capability + "="), "$.fetch.capability"),
            ("expires", .number(JSONNumber(0)), "$.fetch.expires"),
            ("expires", .string("1796000000"), "$.fetch.expires"),
            ("size", .number(JSONNumber(65_537)), "$.fetch.size"),
            ("size", nil, "$.fetch.size"),
            ("sha256", .string("AAAA"), "$.fetch.sha256"),
            ("format", .string("WebPush"), "$.fetch.format"),
            ("extra", .bool(true), "$.fetch.extra"),
        ]
        for (name, value, path) in edits {
            var edited = json
            edited[name] = value
            do {
                _ = try FetchReference(json: .object(edited))
                Issue.record("\(name) = \(String(describing: value)) was accepted")
            } catch {
                #expect(error.code == .malformedContent && error.detail.hasPrefix(path ?? ""), "\(error.detail)")
            }
        }
        // The order: an unknown member is named before a bad url.
        var both = json
        both["url"] = .string("http://x")
        both["zz"] = .null
        #expect(throws: PushSealError.self) { try FetchReference(json: .object(both)) }
        do { _ = try FetchReference(json: .object(both)) } catch { #expect(error.detail.hasPrefix("$.fetch.zz")) }
    }
}
