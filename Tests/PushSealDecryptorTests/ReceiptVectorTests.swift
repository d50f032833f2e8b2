import Foundation
import PushSealPrimitives
import PushSealTestSupport
import Testing

@testable import PushSealCore
@testable import PushSealDecryptor

/// The receipt vectors of `Tests/PushSealCoreTests/Vectors/envelope-v1.json` (envelope-v1.md,
/// "Receipts"), checked against the decryptor: what it shows, the ticket it reports with, and the
/// receipt it would send, alone or in a batch.
@Suite("envelope-v1.json receipt vectors")
struct ReceiptVectorTests {
    static let url = TestVectors.packageRoot.appendingPathComponent(
        "Tests/PushSealCoreTests/Vectors/envelope-v1.json")

    static func vectors() throws -> [JSONObject] {
        let root = try #require(try JSONParser.parse(Array(try Data(contentsOf: url))).objectValue)
        guard case .array(let receipts)? = root["receipts"] else { return [] }
        return receipts.compactMap(\.objectValue)
    }

    /// The JSON object the string member `name` of `vector` holds.
    static func object(_ vector: JSONObject, _ name: String) throws -> JSONObject {
        let text = try #require(vector[name]?.stringValue)
        return try #require(try JSONParser.parse(text).objectValue)
    }

    @Test("the file has receipt vectors of both outcomes, with and without a ticket")
    func kinds() throws {
        let vectors = try Self.vectors()
        #expect(vectors.count >= 9)
        #expect(Set(vectors.compactMap { $0["outcome"]?.stringValue }) == ["displayed", "degraded"])
        #expect(vectors.contains { $0["ticket"] == .null } && vectors.contains { $0["ticket"]?.objectValue != nil })
    }

    @Test("each payload shows what the vector says, and reports with its ticket the receipt it names")
    func vectorsHold() throws {
        for vector in try Self.vectors() {
            let comment = Comment(rawValue: "tcId \(vector["tcId"].map(JSONWriter.string) ?? "?")")
            let store = FetchVectorTests.VectorKeyStore(
                ring: KeyRing(
                    deviceKeys: [try PrivateKey(jwk: try #require(vector["recipient"]?.objectValue))],
                    trustedSenders: []),
                receivers: [])
            let payload = try Self.object(vector, "payload")
            let shown = try Self.object(vector, "shown")
            let result = Decryptor(keyStore: store).prepare(payload)

            let displayed = vector["outcome"] == .string("displayed")
            #expect(result.status == (displayed ? .decrypted : .degraded), comment)
            #expect(result.reason?.rawValue == vector["reason"]?.stringValue, comment)
            #expect(result.notification == NotificationContent(payload: shown), comment)
            #expect(
                !JSONWriter.string(.object(result.notification.userInfo)).contains(ReceiptTicket.member), comment)

            guard let ticket = vector["ticket"]?.objectValue else {
                #expect(result.receipt.map(\.url) == nil, comment)
                continue
            }
            let taken = try #require(result.receipt, comment)
            #expect(taken.json == ticket, comment)
            let outcome = try #require(result.receiptOutcome, comment)
            let request = try #require(vector["receipt"]?.objectValue)
            #expect(request["url"] == .string(taken.url), comment)
            #expect(request["authorization"] == .string(taken.authorization), comment)
            #expect(request["body"] == .string(JSONWriter.string(.object(outcome.json))), comment)
            let batch = try #require(vector["batch"]?.objectValue)
            #expect(batch["url"] == .string(taken.batchURL), comment)
            #expect(batch["item"] == .object(taken.batchItem(outcome)), comment)
        }
    }
}
