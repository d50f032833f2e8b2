import PushSealCore
import Testing

@Suite("Payload contract")
struct PayloadContractTests {
    static let contractText = #"""
        {"schema_versions": [1, 2],
         "links": ["help_url"],
         "routes": {"order": {"id": "uuid", "thread-id": "order:{id}", "collapse-id": "order:{id}"},
                    "invoice": {"id": "integer", "links": ["pdf_url"]},
                    "chat": {"id": "token", "thread-id": "{type}:{id}"},
                    "inbox": {}}}
        """#

    static let contract: PayloadContract = {
        // swift-format-ignore: NeverUseForceTry
        try! PayloadContract(json: Array(contractText.utf8))
    }()

    static func object(_ text: String) throws -> JSONObject {
        try #require(try JSONParser.parse(text).objectValue)
    }

    /// The route error for `text`, or nil when it routes.
    static func error(_ text: String) throws -> RouteError? {
        let payload = try object(text)
        do {
            _ = try contract.route(for: payload)
            return nil
        } catch {
            return error
        }
    }

    @Test("a valid payload gives its route; a UUID is canonical in lower case")
    func routes() throws {
        let route = try Self.contract.route(
            for: try Self.object(
                #"{"type":"order","id":"6B83B22E-7E22-420D-8C8C-921FD6BDCD37","event_id":"e1","schema_version":2}"#))
        #expect(
            route == Route(type: "order", id: "6b83b22e-7e22-420d-8c8c-921fd6bdcd37", schemaVersion: 2, eventID: "e1"))
        #expect(
            try Self.contract.route(for: try Self.object(#"{"type":"inbox","event_id":"e2","schema_version":1}"#)).id
                == nil)
        #expect(
            try Self.contract.route(
                for: try Self.object(#"{"type":"invoice","id":42,"event_id":"e","schema_version":1}"#)
            )
            .id == "42")
    }

    static let failures: [(String, RouteError.Code, String)] = [
        (
            #"{"type":"order","id":"6b83b22e-7e22-420d-8c8c-921fd6bdcd37","event_id":"e"}"#, .unsupportedSchema,
            "$.schema_version"
        ),
        (#"{"type":"inbox","event_id":"e","schema_version":3}"#, .unsupportedSchema, "$.schema_version"),
        (#"{"type":"inbox","event_id":"e","schema_version":"1"}"#, .unsupportedSchema, "$.schema_version"),
        (#"{"type":"inbox","event_id":"e","schema_version":1.0}"#, .unsupportedSchema, "$.schema_version"),
        (#"{"type":"inbox","event_id":"e","schema_version":1e0}"#, .unsupportedSchema, "$.schema_version"),
        (#"{"type":"invoice","id":-0,"event_id":"e","schema_version":1}"#, .badID, "$.id"),
        (#"{"type":"invoice","id":1e0,"event_id":"e","schema_version":1}"#, .badID, "$.id"),
        (#"{"id":"x","event_id":"e","schema_version":1}"#, .unknownType, "$.type"),
        (#"{"type":"settings","event_id":"e","schema_version":1}"#, .unknownType, "$.type"),
        (#"{"type":"Order","event_id":"e","schema_version":1}"#, .unknownType, "$.type"),
        (#"{"type":"order","id":"myapp://pay?to=evil","event_id":"e","schema_version":1}"#, .badID, "$.id"),
        (
            #"{"type":"order","id":"6b83b22e7e22420d8c8c921fd6bdcd37","event_id":"e","schema_version":1}"#, .badID,
            "$.id"
        ),
        (#"{"type":"order","event_id":"e","schema_version":1}"#, .badID, "$.id"),
        (#"{"type":"inbox","id":"1","event_id":"e","schema_version":1}"#, .badID, "$.id"),
        (#"{"type":"invoice","id":"007","event_id":"e","schema_version":1}"#, .badID, "$.id"),
        (#"{"type":"invoice","id":-1,"event_id":"e","schema_version":1}"#, .badID, "$.id"),
        (#"{"type":"invoice","id":1.5,"event_id":"e","schema_version":1}"#, .badID, "$.id"),
        (#"{"type":"invoice","id":99999999999999999999,"event_id":"e","schema_version":1}"#, .badID, "$.id"),
        (#"{"type":"chat","id":"a/b","event_id":"e","schema_version":1}"#, .badID, "$.id"),
        (#"{"type":"chat","id":7,"event_id":"e","schema_version":1}"#, .badID, "$.id"),
        (#"{"type":"inbox","schema_version":1}"#, .missingEventID, "$.event_id"),
        (#"{"type":"inbox","event_id":"","schema_version":1}"#, .missingEventID, "$.event_id"),
        (#"{"type":"inbox","event_id":7,"schema_version":1}"#, .missingEventID, "$.event_id"),
        (#"{"type":"inbox","event_id":"a\nb","schema_version":1}"#, .missingEventID, "$.event_id"),
        // Printable ASCII only: DEL, C1 controls, line and paragraph separators, bidi overrides.
        (#"{"type":"inbox","event_id":"a\u007fb","schema_version":1}"#, .missingEventID, "$.event_id"),
        (#"{"type":"inbox","event_id":"a\u0085b","schema_version":1}"#, .missingEventID, "$.event_id"),
        (#"{"type":"inbox","event_id":"a\u2028b","schema_version":1}"#, .missingEventID, "$.event_id"),
        (#"{"type":"inbox","event_id":"a\u2029b","schema_version":1}"#, .missingEventID, "$.event_id"),
        (#"{"type":"inbox","event_id":"a\u202eb","schema_version":1}"#, .missingEventID, "$.event_id"),
        (#"{"type":"inbox","event_id":"caf\u00e9","schema_version":1}"#, .missingEventID, "$.event_id"),
    ]

    @Test("every way a payload breaks the contract gives its code and JSON path")
    func failuresNamed() throws {
        for (text, code, path) in Self.failures {
            let error = try Self.error(text)
            #expect(error?.code == code, "\(text): \(String(describing: error))")
            #expect(error?.path == path, "\(text)")
        }
        let long = String(repeating: "e", count: 129)
        #expect(try Self.error(#"{"type":"inbox","event_id":"\#(long)","schema_version":1}"#)?.code == .missingEventID)
    }

    @Test(
        "a malformed contract is refused naming the member",
        arguments: [
            #"{"routes":{"a":{}}}"#, #"{"schema_versions":[],"routes":{"a":{}}}"#,
            #"{"schema_versions":[1],"routes":{}}"#,
            #"{"schema_versions":[1],"routes":{"a":{"id":"email"}}}"#,
            #"{"schema_versions":[1],"routes":{"a":{"thread-id":"x:{id}"}}}"#,
            #"{"schema_versions":[1],"routes":{"a":{"id":"uuid","collapse-id":"{user}"}}}"#,
            #"{"schema_versions":[1],"routes":{"a b":{}}}"#, #"{"schema_versions":[1],"routes":{"a":{}},"extra":1}"#,
            #"{"schema_versions":[1],"routes":{"a":{"links":"url"}}}"#, #"{"schema_versions":[-1],"routes":{"a":{}}}"#,
        ])
    func malformedContracts(_ text: String) {
        #expect(throws: PushSealError.self) { try PayloadContract(json: Array(text.utf8)) }
    }
}
