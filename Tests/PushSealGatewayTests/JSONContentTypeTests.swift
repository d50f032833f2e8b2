import Testing

@testable import PushSealGateway

/// The `Content-Type` a body must be sent with.
@Suite("pushseal-gateway JSON content type")
struct JSONContentTypeTests {
    @Test(
        "application/json is JSON in any case of letters, with parameters and HTTP's optional whitespace",
        arguments: [
            "application/json", "Application/JSON", "application/json; charset=utf-8",
            "  application/json  ;charset=UTF-8", "\tapplication/json\t", "application/json;",
        ])
    func json(_ header: String) {
        #expect(JSONContentType.matches(header))
    }

    @Test(
        "another type, a longer or shorter name, a type with spaces inside, or no header is not",
        arguments: [
            nil, "", " ", ";", "text/plain", "application/jsonx", "application/jso", "application/json-seq",
            "application / json", "application/ld+json", "; application/json", "applicatioN/json\u{0}",
            "application/jsön",
        ] as [String?])
    func notJSON(_ header: String?) {
        #expect(!JSONContentType.matches(header))
    }
}
