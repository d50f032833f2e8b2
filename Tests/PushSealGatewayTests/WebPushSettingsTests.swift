import PushSealCore
import Testing

@testable import PushSealGateway

/// The configuration's `webpush` member (gateway-v1.md, "Configuration").
@Suite("webpush settings")
struct WebPushSettingsTests {
    @Test("allowed_hosts: names and *.domain of two labels; other wildcards refused at start, naming the entry")
    func allowedHostPatterns() {
        for good in ["fcm.googleapis.com", "*.notify.windows.com", "*.example.org", "push-1.example"] {
            #expect(WebPushSettings.isHostPattern(good), "\(good)")
        }
        for bad in ["*.com", "*notify.windows.com", "notify.*.com", "*", "a..b", "host:443", "*.", ".example.org"] {
            #expect(!WebPushSettings.isHostPattern(bad), "\(bad)")
        }
    }
}

/// `webpush.content` and `webpush.navigate` (gateway-v1.md, "Web Push", its content).
@Suite("webpush content settings")
struct WebPushContentSettingsTests {
    static func settings(_ members: String) throws -> WebPushSettings {
        let json = #"{"vapid_key_file": "vapid.jwk", "subject": "mailto:ops@example.com"\#(members)}"#
        let object = try #require(try JSONParser.parse(Array(json.utf8)).objectValue)
        return try WebPushSettings(object, at: JSONPath.root.member("webpush"), resolve: { $0 })
    }

    @Test(
        "declarative by default, which needs navigate; a 1.3 webpush (neither member) keeps 1.3's content with a warning; declarative named without navigate is refused"
    )
    func navigateRequired() throws {
        let declarative = try Self.settings(#", "navigate": "https://shop.example.com/n""#)
        #expect(
            declarative.content.form == .declarative && declarative.content.navigate == "https://shop.example.com/n")
        #expect(declarative.warning == nil)
        // As 1.3 wrote it: an upgrade must not stop the gateway.
        let unchanged = try Self.settings("")
        #expect(unchanged.content.form == .serviceWorker13 && unchanged.content.navigate == nil)
        let warning = try #require(unchanged.warning)
        #expect(warning.path == "$.webpush.navigate" && warning.message.contains(#""service-worker-1.3""#))
        do {
            _ = try Self.settings(#", "content": "declarative""#)
            Issue.record("a declarative webpush named without navigate started")
        } catch {
            #expect("\(error)".contains("$.webpush.navigate is missing"), "\(error)")
        }
        let kept = try Self.settings(#", "content": "service-worker-1.3""#)
        #expect(kept.content.form == .serviceWorker13 && kept.content.navigate == nil && kept.warning == nil)
    }

    @Test("a content of another name, or a navigate that is not an https URL, is refused naming the member")
    func refused() {
        for (members, member) in [
            (#", "content": "legacy", "navigate": "https://a.example/""#, "$.webpush.content"),
            (#", "navigate": "http://a.example/""#, "$.webpush.navigate"),
            (#", "navigate": 7"#, "$.webpush.navigate"),
        ] {
            do {
                _ = try Self.settings(members)
                Issue.record("\(members) was taken")
            } catch {
                #expect("\(error)".contains(member), "\(members): \(error)")
            }
        }
    }
}
