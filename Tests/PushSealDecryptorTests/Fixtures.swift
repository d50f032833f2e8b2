import Foundation
import PushSealCore
import PushSealEncryptor
import PushSealTestSupport
import Testing

@testable import PushSealDecryptor

/// A key store held in memory, for tests that are not about files.
struct MemoryKeyStore: KeyStore {
    let ring: KeyRing
    var delay: Duration = .zero

    func loadKeyRing() throws -> KeyRing {
        if delay > .zero {
            Thread.sleep(
                forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
        }
        return ring
    }
}

/// A device with keys on disk, and a server that seals for it.
struct Device {
    let directory = TemporaryDirectory()
    let store: FileKeyStore
    let device: PrivateKey
    let sender: PrivateKey

    init(suite: EnvelopeSuite = .x25519, pinSender: Bool = true) throws {
        store = try FileKeyStore.initialize(directory: directory.file("store"))
        device = try PrivateKey.generate(suite: suite)
        sender = try PrivateKey.generate(suite: suite == .xChaCha ? .x25519 : suite)
        try store.importDeviceKey(device)
        if pinSender, suite.isHPKE, let senderPublic = sender.publicKey { try store.importSender(senderPublic) }
    }

    var recipient: Recipient { device.publicKey.map { .publicKey($0) } ?? .sharedKey(device) }

    func seal(_ payload: String, authenticated: Bool = true, options: EncryptionOptions = EncryptionOptions()) throws
        -> JSONObject
    {
        let encryptor = try Encryptor(
            recipient: recipient, sender: authenticated && device.suite.isHPKE ? sender : nil, options: options)
        return try #require(try JSONParser.parse(try encryptor.seal(json: Array(payload.utf8)).bytes).objectValue)
    }

    var decryptor: Decryptor { Decryptor(keyStore: store, ledger: store.ledger, lateKeyDelay: .milliseconds(50)) }
}

let samplePayload = #"""
    {"aps":{"alert":{"title":"Order #1042 shipped","subtitle":"Lyon depot","body":"Arrives Thursday","loc-key":"ORDER","loc-args":["1042"]},"badge":4,"sound":"default","thread-id":"orders","category":"ORDER","interruption-level":"time-sensitive","relevance-score":0.8,"target-content-id":"order/1042"},"type":"order","event_id":"evt_1042","items":[{"sku":"A1","qty":2}]}
    """#
