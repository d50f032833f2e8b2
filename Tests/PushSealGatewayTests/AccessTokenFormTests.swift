import PushSealGatewayModel
import PushSealPrimitives
import Testing

@testable import PushSealGateway

/// The form of a presented access token (gateway-v1.md): `psg_`, 16 lowercase hex digits, `_`, and
/// the base64url of a 32-byte secret.
@Suite("pushseal-gateway access token form")
struct AccessTokenFormTests {
    @Test("a token made is read back; a secret whose base64url holds `_` and `-` is read whole")
    func readsWhatItMakes() throws {
        let (text, record) = AccessTokens.make(scopes: [.read], at: 0)
        let parsed = try #require(AccessTokens.parse(text))
        #expect(parsed.id == record.id && AccessTokens.matches(parsed.secret, record))
        let secret = [UInt8](repeating: 0xFF, count: 32)  // base64url: underscores throughout
        let underscored = "psg_0123456789abcdef_" + Base64URL.encode(secret)
        #expect(underscored.filter { $0 == "_" }.count > 2)
        #expect(
            AccessTokens.parse(underscored).map { [$0.id] + [Base64URL.encode($0.secret)] }
                == ["0123456789abcdef", Base64URL.encode(secret)])
    }

    @Test(
        "anything else is no token",
        arguments: [
            "", "psg", "psg_", "psg_0123456789abcdef", "PSG_0123456789abcdef_",
            "psx_0123456789abcdef_", "psg_0123456789ABCDEF_", "psg_0123456789abcde_", "psg_0123456789abcdef0_",
            "psg-0123456789abcdef_", "psg_0123456789abcdefg", "psg_0123456789abcd\u{e9}_",
            "psg\u{301}_0123456789abcdef_",
        ].map { $0 + String(repeating: "A", count: 43) } + [
            "psg_0123456789abcdef_" + String(repeating: "A", count: 42),
            "psg_0123456789abcdef_" + String(repeating: "A", count: 44),
            "psg_0123456789abcdef_" + String(repeating: "A", count: 42) + "=",
            "psg_0123456789abcdef_" + String(repeating: "A", count: 42) + "\u{301}",
            "psg_0123456789abcdef_\u{301}" + String(repeating: "A", count: 43),
        ])
    func refusesOtherForms(_ text: String) {
        #expect(AccessTokens.parse(text) == nil)
    }
}
