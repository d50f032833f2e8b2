import PushSealTestSupport
import Testing

@testable import PushSealDelivery

@Suite("Delivery jobs refuse what could reach the wire unchecked")
struct DeliveryJobTests {
    static let token = String(repeating: "ab", count: 32)

    @Test(
        "a device token that is not hex is refused (it is part of the request path)",
        arguments: [
            "", "abc", "zz" + String(repeating: "ab", count: 31), "ab/../ab" + String(repeating: "ab", count: 10),
        ])
    func badTokens(_ token: String) {
        #expect(throws: DeliveryError.self) { try DeliveryJob(line: 1, deviceToken: token, headers: [], body: []) }
    }

    @Test("a header value with a line break or control character, or a bad header name, is refused")
    func badHeaders() throws {
        let bad: [(String, String)] = [
            ("apns-topic", "com.example.app\r\nx-injected: yes"), ("apns-topic", "a\nb"),
            ("apns-collapse-id", "a\u{0}b"),
            ("apns-topic", "a\u{85}b"), ("x-injected: yes\r\napns-topic", "a"), ("APNS-Topic", "a"), ("", "a"),
        ]
        for header in bad {
            #expect(throws: DeliveryError.self, "\(header)") {
                try DeliveryJob(line: 1, deviceToken: Self.token, headers: [header], body: [])
            }
        }
        let good = try DeliveryJob(
            line: 1, deviceToken: Self.token, headers: [("apns-topic", "com.example.app"), ("apns-priority", "10")],
            body: [])
        #expect(good.headers.count == 2)
    }
}
