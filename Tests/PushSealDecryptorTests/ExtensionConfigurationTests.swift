import Foundation
import PushSealCore
import PushSealTestSupport
import Testing

@testable import PushSealDecryptor

/// What `PushSealNotificationService` opens pushes with, decided by `ExtensionConfiguration` on
/// Linux: the App Group's container, or none at all (ios.md, "Debugging").
@Suite("the extension's configuration")
struct ExtensionConfigurationTests {
    @Test("with its App Group's container, the store there opens the push and the ledger there counts it")
    func container() throws {
        let device = try Device()
        let configuration = ExtensionConfiguration(appGroup: "group.com.example.shop")
        // The container holds the store in the configuration's folder.
        let container = device.directory.path
        try FileManager.default.moveItem(atPath: device.directory.file("store"), toPath: "\(container)/pushseal")
        let result = configuration.decryptor(container: container).open(try device.seal(#"{"aps":{"alert":"hi"}}"#))
        #expect(result.status == .decrypted && result.notification.body == "hi")
        let ledger = FileKeyStore(directory: "\(container)/pushseal").ledger
        #expect(try ledger.outcomeCounts()["decrypted"] == 1)
    }

    @Test(
        "a misnamed App Group (no container) degrades every push with key-store-unavailable, under the policy; never passes it through"
    )
    func missingContainer() throws {
        let device = try Device()
        let sealed = try device.seal(#"{"aps":{"alert":{"title":"Order 1042","body":"Shipped"}}}"#)
        let strict = ExtensionConfiguration(appGroup: "group.com.example.shpo")
        let degraded = strict.decryptor(container: nil).open(sealed)
        #expect(degraded.status == .degraded && degraded.reason == .keyStoreUnavailable)
        #expect(degraded.notification.title == strict.policy.neutralTitle, "the policy's neutral text")
        let unsealed = strict.decryptor(container: nil).open(
            try #require(try JSONParser.parse(#"{"aps":{"alert":"plain"}}"#).objectValue))
        #expect(unsealed.status == .degraded && unsealed.notification.body != "plain", "require-sealed holds")
        var lenient = strict
        lenient.policy = .allowUnsealed
        let placeholder = lenient.decryptor(container: nil).open(sealed)
        #expect(placeholder.reason == .keyStoreUnavailable && placeholder.notification.title != "Order 1042")
        #expect(placeholder.notification == NotificationContent(payload: sealed), "the placeholder, as it arrived")
    }
}
