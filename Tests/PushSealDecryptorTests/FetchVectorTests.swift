import Foundation
import PushSealPrimitives
import PushSealTestSupport
import Testing

@testable import PushSealCore
@testable import PushSealDecryptor

/// `Tests/PushSealCoreTests/Vectors/fetch-v1.json`: fetched content (envelope-v1.md, "Fetched
/// content") for other implementations, checked here against the decryptor with each case's
/// recorded answer in place of the network.
@Suite("fetch-v1.json vectors")
struct FetchVectorTests {
    static let url = TestVectors.packageRoot.appendingPathComponent("Tests/PushSealCoreTests/Vectors/fetch-v1.json")

    /// The store of the vectors' keys, held in memory.
    struct VectorKeyStore: KeyStore {
        let ring: KeyRing
        let receivers: [WebPushReceiver]

        func loadKeyRing() throws -> KeyRing { ring }
        func loadWebPushReceivers() throws -> [WebPushReceiver] { receivers }
    }

    static func elements(_ value: JSONValue?) -> [JSONValue]? {
        if case .array(let elements)? = value { return elements }
        return nil
    }

    static func load() throws -> JSONObject {
        try #require(try JSONParser.parse(Array(try Data(contentsOf: url))).objectValue)
    }

    /// The file's text: one member a line, one vector a line.
    static func text(_ file: JSONObject) -> String {
        let members = file.members.map { name, value -> String in
            if case .array(let elements) = value {
                let lines = elements.map { "    " + JSONWriter.string($0) }.joined(separator: ",\n")
                return "  \(JSONWriter.string(.string(name))): [\n\(lines)\n  ]"
            }
            return "  \(JSONWriter.string(.string(name))): \(JSONWriter.string(value))"
        }
        return "{\n" + members.joined(separator: ",\n") + "\n}\n"
    }

    @Test("every case opens as the file says, asking exactly the request it names")
    func cases() throws {
        let file = try Self.load()
        let keys = try #require(file["keys"]?.objectValue)
        let store = VectorKeyStore(
            ring: KeyRing(
                deviceKeys: [try PrivateKey(jwk: try #require(keys["device"]?.objectValue))],
                trustedSenders: [try PublicKey(jwk: try #require(keys["sender"]?.objectValue))]),
            receivers: [try WebPushReceiver(json: try #require(keys["webpush_receiver"]?.objectValue))])
        let now = try #require(file["now"]?.numberValue?.intValue)
        let cases = try #require(Self.elements(file["cases"]))
        #expect(cases.count >= 15)
        for value in cases {
            let vector = try #require(value.objectValue)
            let comment = vector["comment"]?.stringValue ?? ""
            let request = vector["request"]?.objectValue
            let answer = vector["answer"]?.objectValue
            let asked = Protected(0)
            let fetcher = ContentFetcher(now: Int64(now)) { reference, download, _, _ in
                asked.withLock { $0 += 1 }
                guard let request, let answer else {
                    Issue.record("\(comment): a request was made where the file names none")
                    return PushSealError(.fetchFailed, "no request expected")
                }
                #expect(reference.url == request["url"]?.stringValue, "\(comment)")
                #expect(reference.authorization == request["authorization"]?.stringValue, "\(comment)")
                let body = Base64URL.decode(answer["body"]?.stringValue ?? "") ?? []
                guard
                    download.response(
                        status: answer["status"]?.numberValue?.intValue ?? 0,
                        length: answer["content_length"]?.numberValue?.intValue)
                else { return nil }
                _ = body.withUnsafeBytes { download.body($0) }
                return nil
            }
            let payload = try #require(vector["payload"]?.objectValue)
            let result = Decryptor(keyStore: store, fetcher: fetcher).open(payload)
            #expect(result.status.rawValue == vector["status"]?.stringValue, "\(comment): \(result.json)")
            #expect(result.reason?.rawValue == vector["reason"]?.stringValue, "\(comment): \(result.json)")
            #expect(asked.withLock { $0 } == (request == nil ? 0 : 1), "\(comment)")
            if result.status == .decrypted {
                #expect(result.fetched == (vector["fetched"] == .bool(true)), "\(comment)")
                #expect(result.json["format"] == vector["format"], "\(comment)")
                #expect(result.notification.title == vector["title"]?.stringValue, "\(comment)")
                #expect(result.notification.body == vector["body"]?.stringValue, "\(comment)")
            } else {
                #expect(result.notification.body == "Open the app to view it.", "\(comment): the placeholder")
            }
        }
    }

    @Test("every reference is accepted or refused at the member the file names")
    func references() throws {
        for value in try #require(Self.elements(try Self.load()["references"])) {
            let vector = try #require(value.objectValue)
            let comment = vector["comment"]?.stringValue ?? ""
            let parsed = try JSONParser.parse(Array((vector["reference_text"]?.stringValue ?? "").utf8))
            let refusedAt = vector["refused_at"]?.stringValue
            do throws(PushSealError) {
                _ = try FetchReference(json: parsed)
                #expect(refusedAt == nil, "\(comment): accepted")
            } catch {
                #expect(error.code == .malformedContent, "\(comment)")
                #expect(refusedAt.map { error.detail.hasPrefix($0 + " ") } == true, "\(comment): \(error.detail)")
            }
        }
    }

    @Test("the generator reproduces the file exactly (keys, ephemerals, salts and capabilities are derived)")
    func reproducible() throws {
        let onDisk = try String(contentsOf: Self.url, encoding: .utf8)
        #expect(Self.text(try FetchVectorGenerator.file()) == onDisk)
    }

    @Test(
        "rewrite Vectors/fetch-v1.json",
        .enabled(if: ProcessInfo.processInfo.environment["PUSHSEAL_WRITE_VECTORS"] != nil))
    func writeFetchVectors() throws {
        try Self.text(try FetchVectorGenerator.file()).write(to: Self.url, atomically: true, encoding: .utf8)
    }
}
