import Testing

@testable import PushSealGateway

/// Request header names, lowered as the server collects them.
@Suite("pushseal-gateway header names")
struct HeaderNameTests {
    @Test(
        "ASCII capitals are lowered, every other byte is kept",
        arguments: [
            ("Content-Type", "content-type"), ("AUTHORIZATION", "authorization"),
            ("idempotency-key", "idempotency-key"),
            ("AZaz09", "azaz09"), ("@[`{", "@[`{"), ("", ""), ("X-Ä", "x-Ä"), ("X-\u{212A}", "x-\u{212A}"),
        ])
    func lowered(_ name: String, _ expected: String) {
        #expect(name.withCString { HTTPServer.lowercasedASCII($0) } == expected)
    }
}
