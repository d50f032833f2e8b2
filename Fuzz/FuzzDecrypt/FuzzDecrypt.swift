// libFuzzer target: arbitrary bytes as an outer payload, through the Decryptor.
//
// The key ring holds every recipient and sender of Tests/PushSealCoreTests/Vectors/envelope-v1.json
// (PUSHSEAL_FUZZ_VECTORS points at it), so inputs mutated from the seed corpus reach the AEAD,
// the padding and the content parser, not just the header checks.
import Foundation
import PushSealCore
import PushSealDecryptor

private struct VectorKeyStore: KeyStore {
    let ring: KeyRing
    func loadKeyRing() throws -> KeyRing { ring }
}

private let decryptor: Decryptor = {
    let path =
        ProcessInfo.processInfo.environment["PUSHSEAL_FUZZ_VECTORS"]
        ?? "Tests/PushSealCoreTests/Vectors/envelope-v1.json"
    var ring = KeyRing(deviceKeys: [])
    if let data = FileManager.default.contents(atPath: path), let root = try? JSONParser.parse(Array(data)).objectValue,
        case .array(let vectors)? = root["positive"]
    {
        for vector in vectors.compactMap(\.objectValue) {
            if let jwk = vector["recipient"]?.objectValue, let key = try? PrivateKey(jwk: jwk),
                !ring.deviceKeys.contains(where: { $0.kid == key.kid })
            {
                ring.deviceKeys.append(key)
            }
            if let jwk = vector["sender"]?.objectValue, let key = try? PublicKey(jwk: jwk),
                !ring.trustedSenders.contains(where: { $0.kid == key.kid })
            {
                ring.trustedSenders.append(key)
            }
        }
    }
    precondition(!ring.deviceKeys.isEmpty, "no keys: run from the package root or set PUSHSEAL_FUZZ_VECTORS")
    return Decryptor(keyStore: VectorKeyStore(ring: ring), lateKeyDelay: .zero)
}()

/// One fuzz input: the bytes as an outer payload.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecrypt(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let payload = try? JSONParser.parse(bytes).objectValue else { return 0 }
    let result = decryptor.open(payload)
    switch result.status {
    case .plain, .degraded:
        precondition(result.notification == NotificationContent(payload: payload), "not exactly as it arrived")
        precondition((result.status == .degraded) == (result.reason != nil), "a degraded result names its reason")
    case .decrypted:
        precondition(
            (result.header != nil || result.webPushReceiver != nil) && result.reason == nil,
            "a decrypted result names its header or its Web Push receiver")
    }
    _ = JSONWriter.bytes(.object(result.json))
    return 0
}
