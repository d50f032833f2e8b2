// libFuzzer target: arbitrary bytes as a key store's keys.json, through the reader.
//
// The key file sits in the container the app shares, so it is untrusted input. Beyond "no
// crash", every refusal must be key-store-unavailable, and every device key that loads must be
// found again by its kid and suite, as the opener looks it up.
import PushSealCore
import PushSealDecryptor

/// One fuzz input: the bytes as keys.json.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKeyStore(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let (ring, policy) = try FileKeyStore.read(keyFile: bytes)
        precondition(policy.neutralPayload["aps"]?.objectValue?["alert"] != nil, "the neutral payload has no alert")
        for key in ring.deviceKeys {
            precondition(ring.deviceKey(kid: key.kid, suite: key.suite) != nil, "a loaded key cannot be found by kid")
        }
    } catch let error as PushSealError {
        precondition(error.code == .keyStoreUnavailable, "unexpected reason \(error.code)")
    } catch {
        preconditionFailure("unexpected error \(error)")
    }
    return 0
}
