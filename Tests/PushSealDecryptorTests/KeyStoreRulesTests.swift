import Foundation
import PushSealCore
import PushSealTestSupport
import Testing

@testable import PushSealDecryptor

@Suite("Key store: init, kids across roles, policy")
struct KeyStoreRulesTests {
    @Test("init on an existing empty 0755 directory makes it 0700 and reports it created")
    func looseEmptyDirectory() throws {
        let temporary = TemporaryDirectory()
        let directory = temporary.file("store")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        chmod(directory, 0o755)
        let (store, created) = try FileKeyStore.create(directory: directory)
        #expect(created)
        #expect(try FileKeyStoreTests.mode(directory) == 0o700)
        #expect(try store.entries().isEmpty)
        #expect(try FileKeyStore.create(directory: directory).created == false)
    }

    @Test("init on a store whose directory was opened to others refuses it, naming the chmod")
    func looseStore() throws {
        let temporary = TemporaryDirectory()
        let directory = temporary.file("store")
        try FileKeyStore.initialize(directory: directory)
        chmod(directory, 0o755)
        do {
            _ = try FileKeyStore.create(directory: directory)
            Issue.record("a loose store was accepted")
        } catch let error as PushSealError {
            #expect(error.detail.contains("chmod 700 \(directory)"), "\(error.detail)")
        }
        #expect(try FileKeyStoreTests.mode(directory) == 0o755, "a store with keys is never silently re-permissioned")
    }

    @Test("six inits racing, 30 rounds: none fails and exactly one creates the store each round")
    func racingInits() throws {
        let temporary = TemporaryDirectory()
        for round in 0..<30 {
            let directory = temporary.file("store-\(round)")
            let outcomes = Protected<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 6) { _ in
                do {
                    let created = try FileKeyStore.create(directory: directory).created
                    outcomes.withLock { $0.append(created ? "created" : "existed") }
                } catch {
                    outcomes.withLock { $0.append("failed: \(error)") }
                }
            }
            let all = outcomes.withLock { $0 }
            #expect(all.filter { $0 == "created" }.count == 1, "round \(round): \(all)")
            #expect(all.filter { $0.hasPrefix("failed") }.isEmpty, "round \(round): \(all)")
        }
    }

    @Test("a kid is unique across device keys and senders")
    func uniqueKids() throws {
        let temporary = TemporaryDirectory()
        let store = try FileKeyStore.initialize(directory: temporary.file("store"))
        let device = try PrivateKey.generate(suite: .x25519, kid: "shared-kid")
        try store.importDeviceKey(device)
        let sender = try #require(try PrivateKey.generate(suite: .x25519, kid: "shared-kid").publicKey)
        #expect(throws: PushSealError(.invalidKey, "")) { try store.importSender(sender) }
        #expect(try store.entries().map(\.role) == [.device])
    }

    @Test("in a store written with a kid in both roles, retire needs the role and removes only that key")
    func ambiguousRetire() throws {
        let temporary = TemporaryDirectory()
        let store = try FileKeyStore.initialize(directory: temporary.file("store"))
        let old = try PrivateKey.generate(suite: .x25519, kid: "twin")
        let current = try PrivateKey.generate(suite: .x25519)
        try store.importDeviceKey(current)
        try store.importDeviceKey(old)
        let sender = try #require(try PrivateKey.generate(suite: .x25519, kid: "twin").publicKey)
        // As an older build would have written it: the same kid as a device key and a sender.
        var contents = try store.contents()
        contents.entries.append(
            StoredKey(
                kid: "twin", suite: .x25519, role: .sender, current: false, created: "2026-01-01T00:00:00Z",
                jwk: sender.jwk))
        var bytes = FileKeyStore.serialize(contents)
        try Data(bytes).write(to: URL(fileURLWithPath: store.keysPath))
        SecureMemory.wipe(&bytes)

        do {
            try store.retire(kid: "twin")
            Issue.record("an ambiguous kid was retired")
        } catch let error as PushSealError {
            #expect(error.detail.contains("--role"), "\(error.detail)")
        }
        try store.retire(kid: "twin", role: .sender)
        let left = try store.entries()
        #expect(left.map(\.kid) == [current.kid, "twin"])
        #expect(left.map(\.role) == [.device, .device], "revoking the sender kept the device key")
    }

    @Test("require-sealed: an unsealed payload shows only the neutral text and loses every member")
    func requireSealed() throws {
        let device = try Device()
        let spoofed = try #require(
            try JSONParser.parse(
                #"{"aps":{"alert":{"title":"Your bank","body":"Call 555-0100"},"category":"PAY"},"type":"order","id":"x","deeplink":"app://pay"}"#
            ).objectValue)
        #expect(device.decryptor.open(spoofed).status == .plain, "off by default")

        let policy = try device.store.changePolicy {
            $0.requireSealed = true
            $0.neutralTitle = "Message"
        }
        #expect(try device.store.loadPolicy() == policy)
        for payload in [spoofed, try #require(try JSONParser.parse(#"{"aps":{"alert":"hi"},"enc":0}"#).objectValue)] {
            let result = device.decryptor.open(payload)
            #expect(result.status == .degraded)
            #expect(result.reason == .notSealed)
            #expect(result.notification.title == "Message")
            #expect(result.notification.body == "Open the app to view it.")
            #expect(result.notification.categoryIdentifier == nil)
            #expect(result.notification.userInfo.members.map(\.name) == ["aps"], "no custom member survives")
        }
        #expect(device.decryptor.open(try device.seal(samplePayload)).status == .decrypted, "sealed still opens")
        #expect(try device.store.ledger.outcomeCounts()["not-sealed"] == 2)
    }

    /// A forged alert beside an `enc` that is not an envelope: the review's bypass.
    static let forgedBesideEnc = #"""
        {"aps":{"alert":{"title":"Bank: account locked","body":"Call +1-555-0100"},"category":"PAY","sound":"x"},"enc":"x","deeplink":"https://evil"}
        """#

    @Test("require-sealed: an envelope that does not open, for any reason, shows only the neutral text")
    func requireSealedCoversEveryFailure() throws {
        let device = try Device()
        try device.store.changePolicy { $0.requireSealed = true }
        let stranger = try Device()
        let cases: [(payload: JSONObject, reason: PushSealError.Code)] = [
            (try #require(try JSONParser.parse(Self.forgedBesideEnc).objectValue), .malformedEnvelope),
            (try stranger.seal(samplePayload), .unknownKey),
        ]
        for (payload, reason) in cases {
            let result = device.decryptor.open(payload)
            #expect(result.status == .degraded)
            #expect(result.reason == reason, "the reason is kept")
            #expect(result.notification.userInfo == StorePolicy(requireSealed: true).neutralPayload)
            #expect(result.notification.title == "New notification", "never the placeholder")
            #expect(result.notification.categoryIdentifier == nil && result.notification.sound == nil)
        }
    }

    @Test("require-sealed fixed in code holds when the store's flag is off, and when the store cannot be read")
    func requireSealedFixedInCode() throws {
        let device = try Device()
        let forged = try #require(try JSONParser.parse(Self.forgedBesideEnc).objectValue)
        let unsealed = try #require(try JSONParser.parse(#"{"aps":{"alert":"Call 555"},"deeplink":"x"}"#).objectValue)
        let policy = StorePolicy(requireSealed: true, neutralTitle: "Shop")
        let stores: [any KeyStore] = [device.store, FileKeyStore(directory: device.directory.file("missing"))]
        for store in stores {
            let decryptor = Decryptor(keyStore: store, policy: policy)
            for payload in [forged, unsealed] {
                let result = decryptor.open(payload)
                #expect(result.status == .degraded)
                #expect(result.notification.userInfo == policy.neutralPayload)
            }
        }
        let readable = Decryptor(keyStore: device.store, policy: policy)
        #expect(readable.open(try device.seal(samplePayload)).status == .decrypted, "sealed still opens")
        #expect(readable.open(unsealed).reason == .notSealed)
    }
}
