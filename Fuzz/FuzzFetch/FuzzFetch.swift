// libFuzzer target: fetched content (envelope-v1.md, "Fetched content").
//
// The first byte picks the mode:
//   0  the rest is a `fetch` member's JSON: read as a reference; one accepted must write itself
//      back to an equal reference, and never show its capability in its description;
//   1  the rest is fetched content, as an envelope, and 2, as a Web Push message: a push whose
//      sealed reference names exactly those bytes goes through the Decryptor, the bytes coming
//      back as the answer, with the keys of Tests/PushSealCoreTests/Vectors/fetch-v1.json
//      (PUSHSEAL_FUZZ_FETCH_VECTORS points at it), so that mutated vector bodies reach the AEAD
//      and the content parser. The result is the fetched content or the placeholder, whole.
import Foundation
import PushSealCore
import PushSealDecryptor
import PushSealEncryptor

private struct VectorKeyStore: KeyStore {
    let ring: KeyRing
    let receivers: [WebPushReceiver]
    func loadKeyRing() throws -> KeyRing { ring }
    func loadWebPushReceivers() throws -> [WebPushReceiver] { receivers }
}

private let keys: (store: VectorKeyStore, encryptor: Encryptor) = {
    let path =
        ProcessInfo.processInfo.environment["PUSHSEAL_FUZZ_FETCH_VECTORS"]
        ?? "Tests/PushSealCoreTests/Vectors/fetch-v1.json"
    guard let data = FileManager.default.contents(atPath: path),
        let keys = (try? JSONParser.parse(Array(data)).objectValue)?["keys"]?.objectValue,
        let deviceJWK = keys["device"]?.objectValue, let device = try? PrivateKey(jwk: deviceJWK),
        let receiverJSON = keys["webpush_receiver"]?.objectValue,
        let receiver = try? WebPushReceiver(json: receiverJSON), let publicKey = device.publicKey,
        let encryptor = try? Encryptor(recipient: .publicKey(publicKey))
    else { preconditionFailure("no keys: run from the package root or set PUSHSEAL_FUZZ_FETCH_VECTORS") }
    return (VectorKeyStore(ring: KeyRing(deviceKeys: [device]), receivers: [receiver]), encryptor)
}()

/// One fuzz input, as the header says.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFetch(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let mode = bytes.first else { return 0 }
    let rest = Array(bytes.dropFirst())
    switch mode % 3 {
    case 0:
        guard let value = try? JSONParser.parse(rest), let reference = try? FetchReference(json: value) else {
            return 0
        }
        guard let again = try? FetchReference(json: .object(reference.json)) else {
            preconditionFailure("an accepted reference does not read back")
        }
        precondition(again.json == reference.json, "a reference changed on its way back")
        let capability = reference.json["capability"]?.stringValue ?? ""
        precondition(!"\(reference)".contains(capability), "the description shows the capability")
    default:
        guard (1...FetchReference.maximumSize).contains(rest.count) else { return 0 }
        fetch(rest, format: mode % 3 == 1 ? .envelope : .webPush)
    }
    return 0
}

/// Opens a push whose reference names `content`, answered with `content`.
private func fetch(_ content: [UInt8], format: FetchReference.Format) {
    let now: Int64 = 1_796_000_000
    guard
        let (reference, _) = try? FetchReference.make(
            url: "https://push.example.com/v1/fetch/fuzz", expires: now + 600, content: content, format: format),
        let sealed = try? keys.encryptor.seal(
            JSONObject([
                ("aps", .object(JSONObject([("alert", .string("placeholder"))]))),
                (FetchReference.member, .object(reference.json)),
            ])),
        let payload = try? JSONParser.parse(sealed.bytes).objectValue
    else { preconditionFailure("a reference does not seal") }
    let fetcher = ContentFetcher(now: now) { _, download, _, _ in
        guard download.response(status: 200, length: content.count) else { return nil }
        _ = content.withUnsafeBytes { download.body($0) }
        return nil
    }
    let result = Decryptor(keyStore: keys.store, fetcher: fetcher, lateKeyDelay: .zero).open(payload)
    switch result.status {
    case .decrypted:
        precondition(result.fetched && result.reason == nil, "decrypted content that was fetched says so")
    case .degraded:
        precondition(result.notification == NotificationContent(payload: payload), "not exactly as it arrived")
        precondition(!result.fetched && result.reason != nil, "a degraded result names its reason")
    case .plain:
        preconditionFailure("a sealed push is never plain")
    }
    _ = JSONWriter.bytes(.object(result.json))
}
