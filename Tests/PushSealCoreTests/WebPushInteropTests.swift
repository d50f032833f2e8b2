import Foundation
import PushSealPrimitives
import PushSealTestSupport
import Testing

@testable import PushSealCore

/// Interoperability with http_ece (PyPI), the Web Push reference implementation's library: what
/// PushSeal seals, it opens, at every padding and at the 4,096-byte edge; what it seals, PushSeal opens.
@Suite("Web Push interop with http_ece")
struct WebPushInteropTests {
    static func file(_ object: JSONObject) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("webpush-\(RandomUUID.make()).json")
        try Data(JSONWriter.bytes(.object(object))).write(to: url)
        return url
    }

    static func lines(_ values: [String], key: String) -> String {
        values.map { "{\"\(key)\":\"\($0)\"}\n" }.joined()
    }

    /// `contents` sealed by the Python peer (`webpush_peer.py seal`, with `extra` arguments) for a
    /// fresh receiver: the receiver, and the messages in order.
    static func sealedByPeer(_ contents: [[UInt8]], _ extra: [String] = []) throws -> (WebPushReceiver, [[UInt8]]) {
        let receiver = try WebPushReceiver.generate()
        let subscriptionFile = try Self.file(try receiver.subscription(endpoint: "https://push.example.net/p/1").json)
        defer { try? FileManager.default.removeItem(at: subscriptionFile) }
        let result = try PythonPeer.webPush(
            ["seal", "--subscription", subscriptionFile.path] + extra,
            input: Self.lines(contents.map { Base64URL.encode($0) }, key: "content"))
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.lines.count == contents.count)
        let bodies = try result.lines.map { line in
            let answer = try #require(try JSONParser.parse(Array(line.utf8)).objectValue)
            return try #require(answer["body"]?.stringValue.flatMap { Base64URL.decode($0) })
        }
        return (receiver, bodies)
    }

    @Test("http_ece opens what PushSeal seals: every record length for one content, and every size class")
    func sealedHereOpenedThere() throws {
        let receiver = try WebPushReceiver.generate()
        let subscription = try receiver.subscription(endpoint: "https://push.example.net/p/1")
        let receiverFile = try Self.file(receiver.json)
        defer { try? FileManager.default.removeItem(at: receiverFile) }

        let content = Array("{\"title\":\"Dentist\",\"body\":\"Due now\"}".utf8)
        var expected: [[UInt8]] = []
        var bodies: [String] = []
        for length in (content.count + 1)...WebPushMessage.maximumRecordPlaintextByteCount {
            bodies.append(
                Base64URL.encode(
                    try WebPushMessage.seal(
                        content, for: subscription, recordPlaintextCount: length, sender: nil, salt: nil)))
            expected.append(content)
        }
        for size in [0, 1, 127, 128, 1_000, 3_992, 3_993] {
            let sized = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 13) }
            bodies.append(Base64URL.encode(try WebPushMessage.seal(sized, for: subscription)))
            expected.append(sized)
        }
        let result = try PythonPeer.webPush(
            ["open", "--receiver", receiverFile.path], input: Self.lines(bodies, key: "body"))
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.lines.count == bodies.count)
        for (index, line) in result.lines.enumerated() {
            let answer = try #require(try JSONParser.parse(Array(line.utf8)).objectValue)
            let opened = answer["content"]?.stringValue.flatMap { Base64URL.decode($0) }
            guard opened == expected[index] else {
                Issue.record("message \(index) (\(bodies[index].count) base64 characters): \(line.prefix(200))")
                return
            }
        }
    }

    @Test("PushSeal opens what http_ece seals, up to the 3,993-byte content that fills 4,096 bytes")
    func sealedThereOpenedHere() throws {
        let sizes = [0, 1, 2, 15, 16, 17, 41, 128, 1_000, 3_000, 3_992, 3_993]
        let contents = sizes.map { size in (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ size) } }
        let (receiver, bodies) = try Self.sealedByPeer(contents)
        for (index, body) in bodies.enumerated() {
            #expect(body.count <= WebPushMessage.maximumByteCount)
            guard sizes[index] > 0 else {
                // http_ece writes empty content as a header with no record at all. RFC 8188 ends
                // every message with a record holding the 0x02 delimiter, so PushSeal refuses it.
                #expect(body.count == 86)
                #expect(throws: WebPushError(.decryptionFailed, "")) { try WebPushMessage.open(body, with: receiver) }
                continue
            }
            #expect(try WebPushMessage.open(body, with: receiver) == contents[index], "size \(sizes[index])")
        }
    }

    @Test("PushSeal opens what pywebpush (PyPI) sends, as a Python backend would seal it, up to 3,993 bytes")
    func sealedByPyWebPush() throws {
        // pywebpush refuses empty data (NoData), so sizes start at one byte.
        let sizes = [1, 2, 41, 128, 1_000, 3_992, 3_993]
        let contents = sizes.map { size in (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 11 &+ 3) } }
        let (receiver, bodies) = try Self.sealedByPeer(contents, ["--with", "pywebpush"])
        for (index, body) in bodies.enumerated() {
            #expect(try WebPushMessage.open(body, with: receiver) == contents[index], "size \(sizes[index])")
        }
    }
}

/// The legacy aesgcm coding against the same peers: pywebpush seals as Mastodon's library does,
/// and http_ece opens the frames PushSeal's relay forwards, reading them as webpush-v1.md alone
/// describes them.
extension WebPushInteropTests {
    @Test("PushSeal opens the aesgcm frames of what pywebpush seals, up to the 4,078 bytes one body holds")
    func aesgcmSealedByPyWebPush() throws {
        let sizes = [1, 2, 41, 128, 1_000, 2_873, 4_000, 4_078]
        let contents = sizes.map { size in (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 5 &+ 1) } }
        let (receiver, frames) = try Self.sealedByPeer(contents, ["--with", "pywebpush", "--coding", "aesgcm"])
        for (index, frame) in frames.enumerated() {
            #expect(frame.count == 86 + 16 + 2 + sizes[index], "pywebpush pads with nothing")
            let (content, _) = try WebPushCoding.aesgcm.open(frame, with: receiver)
            #expect(content == contents[index], "size \(sizes[index])")
        }
    }

    @Test("http_ece opens the frames PushSeal forwards, the draft's example among them, at every padding")
    func aesgcmOpenedThere() throws {
        let receiver = try WebPushReceiver.generate()
        let subscription = try receiver.subscription(endpoint: "https://push.example.net/p/1")
        var cases: [(receiver: WebPushReceiver, frame: [UInt8], content: [UInt8])] = []
        for (size, padding) in [(1, 0), (15, 1), (300, 200), (2_000, 0), (4_000, 78), (0, 40)] {
            let content = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 3) }
            let message = try AESGCMMessage.seal(content, for: subscription, padding: padding, recordSize: 4_096)
            cases.append((receiver, message.frame, content))
        }
        let small = try AESGCMMessage.seal(Array("small rs".utf8), for: subscription, recordSize: 40)
        cases.append((receiver, small.frame, Array("small rs".utf8)))
        let example = AESGCMMessageTests.DraftExample.self
        cases.append(
            (
                try example.receiver(), try #require(Base64URL.decode(example.frame)),
                Array(example.plaintext.utf8)
            ))
        for (receiver, group) in [(receiver, cases.dropLast()), (try example.receiver(), cases.suffix(1))] {
            let receiverFile = try Self.file(receiver.json)
            defer { try? FileManager.default.removeItem(at: receiverFile) }
            let result = try PythonPeer.webPush(
                ["open-aesgcm", "--receiver", receiverFile.path],
                input: Self.lines(group.map { Base64URL.encode($0.frame) }, key: "frame"))
            #expect(result.status == 0, "\(result.errors)")
            #expect(result.lines.count == group.count)
            for (line, expected) in zip(result.lines, group) {
                let answer = try #require(try JSONParser.parse(Array(line.utf8)).objectValue)
                #expect(
                    answer["content"]?.stringValue.flatMap { Base64URL.decode($0) } == expected.content,
                    "\(line.prefix(200))")
            }
        }
    }
}
