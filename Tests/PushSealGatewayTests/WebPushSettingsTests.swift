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
