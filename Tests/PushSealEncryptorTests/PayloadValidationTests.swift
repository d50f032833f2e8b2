import PushSealCore
import Testing

@testable import PushSealEncryptor

/// Every rule of Apple's that the encryptor checks, each with the JSON path its message must name.
@Suite("Payload validation")
struct PayloadValidationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let payload: String
        let pushType: PushType
        let path: String
        var testDescription: String { "\(path): \(payload)" }

        init(_ payload: String, _ path: String, _ pushType: PushType = .alert) {
            self.payload = payload
            self.path = path
            self.pushType = pushType
        }
    }

    static let invalid: [Case] = [
        Case(#"[1]"#, "$ "),
        Case(#"{"alert":"x"}"#, "$.aps "),
        Case(#"{"aps":"x"}"#, "$.aps "),
        Case(#"{"aps":{"alert":5}}"#, "$.aps.alert "),
        Case(#"{"aps":{"alert":{"headline":"x"}}}"#, "$.aps.alert.headline "),
        Case(#"{"aps":{"alert":{"title":7}}}"#, "$.aps.alert.title "),
        Case(#"{"aps":{"alert":{"loc-args":"x"}}}"#, "$.aps.alert['loc-args'] "),
        Case(#"{"aps":{"alert":{"loc-args":[1]}}}"#, "$.aps.alert['loc-args'] "),
        Case(#"{"aps":{"badge":-1}}"#, "$.aps.badge "),
        Case(#"{"aps":{"badge":1.5}}"#, "$.aps.badge "),
        Case(#"{"aps":{"badge":"3"}}"#, "$.aps.badge "),
        Case(#"{"aps":{"sound":5}}"#, "$.aps.sound "),
        Case(#"{"aps":{"sound":{"critical":2,"name":"a"}}}"#, "$.aps.sound.critical "),
        Case(#"{"aps":{"sound":{"name":"a","volume":1.5}}}"#, "$.aps.sound.volume "),
        Case(#"{"aps":{"sound":{"loud":1}}}"#, "$.aps.sound.loud "),
        Case(#"{"aps":{"interruption-level":"urgent"}}"#, "$.aps['interruption-level'] "),
        Case(#"{"aps":{"relevance-score":1.01}}"#, "$.aps['relevance-score'] "),
        Case(#"{"aps":{"relevance-score":-0.1}}"#, "$.aps['relevance-score'] "),
        Case(#"{"aps":{"relevance-score":"high"}}"#, "$.aps['relevance-score'] "),
        Case(#"{"aps":{"content-available":1}}"#, "$.aps['content-available'] "),
        Case(#"{"aps":{"content-available":0}}"#, "$.aps['content-available'] ", .background),
        Case(#"{"aps":{"alert":"x","content-available":1}}"#, "$.aps.alert ", .background),
        Case(#"{"aps":{"thread-id":5}}"#, "$.aps['thread-id'] "),
        Case(#"{"aps":{"category":true}}"#, "$.aps.category "),
        Case(#"{"aps":{"target-content-id":[]}}"#, "$.aps['target-content-id'] "),
        Case(#"{"aps":{"alert":"x"},"enc":"AQ"}"#, "$.enc "),
        Case(#"{"aps":{"alert":"x"},"#, "not JSON"),
    ]

    @Test("a payload that breaks Apple's rules fails with its JSON path", arguments: invalid)
    func refuses(_ testCase: Case) throws {
        var options = EncryptionOptions()
        options.pushType = testCase.pushType
        let encryptor = try Encryptor(
            recipient: .publicKey(try #require(try PrivateKey.generate(suite: .x25519).publicKey)),
            options: options)
        do {
            _ = try encryptor.seal(json: Array(testCase.payload.utf8))
            Issue.record("accepted \(testCase.payload)")
        } catch let error as PushSealError {
            #expect(error.code == .invalidPayload)
            #expect(error.detail.contains(testCase.path), "\(error.detail)")
        }
    }

    static let valid: [(String, PushType)] = [
        (
            #"{"aps":{"alert":"x","badge":0,"sound":{"critical":1,"name":"a.caf","volume":0.5},"relevance-score":1}}"#,
            .alert
        ),
        (
            #"{"aps":{"alert":{"title-loc-key":"T","title-loc-args":["a"],"launch-image":"l.png"},"interruption-level":"critical"}}"#,
            .alert
        ),
        (#"{"aps":{"content-available":1},"x":1}"#, .background),
        (#"{"caller":"Alice"}"#, .voip),
        (#"{"aps":{"alert":"x","mutable-content":1,"filter-criteria":"work"}}"#, .alert),
    ]

    @Test("payloads within the rules are accepted")
    func accepts() throws {
        let key = try #require(try PrivateKey.generate(suite: .x25519).publicKey)
        for (payload, pushType) in Self.valid {
            var options = EncryptionOptions()
            options.pushType = pushType
            #expect(throws: Never.self, "\(payload)") {
                try Encryptor(recipient: .publicKey(key), options: options).seal(json: Array(payload.utf8))
            }
        }
    }
}
