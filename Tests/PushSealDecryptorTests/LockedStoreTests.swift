import Foundation
import PushSealCore
import PushSealTestSupport
import Testing

@testable import PushSealDecryptor

/// A store that iOS will not let the extension read yet (data protection before the first unlock
/// after a restart, `EPERM`): the notification degrades as `key-store-locked`, not as a broken or
/// missing store, and the ledger counts it.
@Suite("A store read before the first unlock")
struct LockedStoreTests {
    /// A store whose files the system refuses, as iOS does before the first unlock.
    struct LockedStore: KeyStore {
        let store: FileKeyStore

        func loadKeyRing() throws -> KeyRing {
            throw store.unavailable(.system("open", "\(store.directory)/keys.json", EPERM), "key store refused")
        }
    }

    @Test("EPERM on a store file is key-store-locked; ENOENT and others stay key-store-unavailable")
    func mapping() {
        let store = FileKeyStore(directory: "/container/pushseal")
        let locked = store.unavailable(.system("open", "/container/pushseal/keys.json", EPERM), "key store refused")
        #expect(locked.code == .keyStoreLocked && locked.detail.contains("first unlock"), "\(locked)")
        for code in [ENOENT, EACCES, ELOOP] {
            let other = store.unavailable(.system("open", "/container/pushseal/keys.json", code), "key store refused")
            #expect(other.code == .keyStoreUnavailable, "\(code): \(other)")
        }
    }

    @Test("a sealed push degrades with key-store-locked, shows the placeholder, and the ledger counts it")
    func degrades() throws {
        let device = try Device()
        let payload = try device.seal(samplePayload)
        let decryptor = Decryptor(keyStore: LockedStore(store: device.store), ledger: device.store.ledger)
        let result = decryptor.open(payload)
        #expect(result.status == .degraded && result.reason == .keyStoreLocked)
        #expect(result.notification.userInfo == payload, "the notification as it arrived")
        #expect(try device.store.ledger.outcomeCounts()["key-store-locked"] == 1)
    }
}
