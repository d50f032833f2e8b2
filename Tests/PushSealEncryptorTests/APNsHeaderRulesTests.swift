import PushSealCore
import Testing

@testable import PushSealEncryptor

@Suite("APNs header values are checked before they reach the wire")
struct APNsHeaderRulesTests {
    static func sealed() throws -> SealedPayload {
        let device = try PrivateKey.generate(suite: .x25519)
        let encryptor = try Encryptor(recipient: .publicKey(try #require(device.publicKey)))
        return try encryptor.seal(json: Array(#"{"aps":{"alert":"hi"}}"#.utf8))
    }

    static func request(_ options: APNsRequestOptions, _ pushType: PushType = .alert) throws -> APNsRequest {
        try APNsRequest(payload: try sealed(), pushType: pushType, options: options)
    }

    @Test(
        "a topic that is not a bundle id is refused with a named reason",
        arguments: [
            "com.example.app\r\nx-injected: yes", "com.example.app\n", "com example", "com..example", ".com.example",
            "com.example.", "com/example", "com.exämple", "", String(repeating: "a", count: 256),
        ])
    func badTopics(_ topic: String) throws {
        do {
            _ = try Self.request(APNsRequestOptions(topic: topic))
            Issue.record("accepted topic \(topic.debugDescription)")
        } catch let error as PushSealError {
            #expect(error.code == .invalidPayload)
            #expect(error.detail.hasPrefix("apns-topic"), "\(error.detail)")
            #expect(!error.detail.contains("\r\n"), "the message never carries the raw line break")
        }
    }

    @Test("bundle ids with Apple's suffixes are accepted; a VoIP topic must end in .voip")
    func goodTopics() throws {
        for topic in [
            "com.example.app", "com.example-co.App2", "com.example.app.complication",
            "com.example.app.push-type.liveactivity", "com.example.app.pushkit.fileprovider",
        ] {
            #expect(throws: Never.self) { try Self.request(APNsRequestOptions(topic: topic)) }
        }
        #expect(throws: Never.self) {
            try APNsRequest(
                body: Array(#"{"enc":"AQ"}"#.utf8), pushType: .voip,
                options: APNsRequestOptions(topic: "com.example.app.voip"))
        }
        #expect(throws: PushSealError.self) {
            try APNsRequest(
                body: Array(#"{"enc":"AQ"}"#.utf8), pushType: .voip,
                options: APNsRequestOptions(topic: "com.example.app"))
        }
    }

    @Test("a collapse id with a control character, or over 64 bytes, is refused")
    func collapseIDs() throws {
        for collapseID in [
            "order\r\nx-injected: 1", "a\u{0}b", "tab\there", "a\u{7F}", "", String(repeating: "c", count: 65),
        ] {
            #expect(throws: PushSealError.self, "\(collapseID.debugDescription)") {
                try Self.request(APNsRequestOptions(topic: "com.example.app", collapseID: collapseID))
            }
        }
        let request = try Self.request(APNsRequestOptions(topic: "com.example.app", collapseID: "order:1042 ✓"))
        #expect(request.headers.contains { $0.name == "apns-collapse-id" && $0.value == "order:1042 ✓" })
    }

    @Test("apns-id must be a canonical UUID")
    func apnsIDs() throws {
        let good = "6B83B22E-7E22-420D-8C8C-921FD6BDCD37"
        let request = try Self.request(APNsRequestOptions(topic: "com.example.app", apnsID: good))
        #expect(request.headers.last?.name == "apns-id" && request.headers.last?.value == good)
        #expect(throws: Never.self) {
            try Self.request(APNsRequestOptions(topic: "com.example.app", apnsID: good.lowercased()))
        }
        for bad in [
            "6B83B22E7E22420D8C8C921FD6BDCD37", "6B83B22E-7E22-420D-8C8C-921FD6BDCD3\n",
            "6B83B22E-7E22-420D-8C8C-921FD6BDCD3G", "{6B83B22E-7E22-420D-8C8C-921FD6BDCD37}", "x",
        ] {
            #expect(throws: PushSealError.self, "\(bad.debugDescription)") {
                try Self.request(APNsRequestOptions(topic: "com.example.app", apnsID: bad))
            }
        }
    }
}
