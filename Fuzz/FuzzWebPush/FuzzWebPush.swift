// libFuzzer target: arbitrary bytes through webpush-v1.md's opening rules.
//
// The first byte picks what the rest is: 0, a message to open; 1, a decrypted record, through the
// delimiter and padding rule alone (the part a fuzzer cannot reach through AES-GCM); 2, content
// to seal and open again; 3, opened content through the extension's standard mapping (Declarative
// Web Push, Mastodon's shape, APNs payloads, text). Beyond "no crash", every refusal must carry a
// reason opening can give, a record's content must end where its 0x02 delimiter stands with only
// zeros after it, sealed content must come back unchanged, and the mapping must give an APNs
// payload (an `aps` object, any badge a count) for every UTF-8 content and nothing for the rest.
import PushSealCore

/// One receiver for the whole run, and its subscription: messages for it come only from mode 2.
private let (receiver, subscription): (WebPushReceiver, WebPushSubscription) = {
    do {
        let receiver = try WebPushReceiver.generate()
        return (receiver, try receiver.subscription(endpoint: "https://push.example.net/fuzz"))
    } catch {
        preconditionFailure("no receiver: \(error)")
    }
}()

/// The reasons `WebPushMessage.open` may give.
let openingReasons: Set<WebPushError.Reason> = [
    .messageTooLarge, .malformedHeader, .invalidRecordSize, .invalidSenderKey, .multipleRecords, .decryptionFailed,
    .missingDelimiter, .misplacedDelimiter, .nonZeroPadding,
]

/// One fuzz input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebPush(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let mode = data[0]
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    switch mode % 4 {
    case 0:
        do {
            _ = try WebPushMessage.open(bytes, with: receiver)
        } catch {
            precondition(openingReasons.contains(error.reason), "unexpected reason \(error.reason)")
        }
    case 1:
        do {
            let length = try WebPushMessage.contentLength(bytes)
            precondition(bytes[length] == 0x02, "the content does not end at the delimiter")
            precondition(bytes[(length + 1)...].allSatisfy { $0 == 0 }, "non-zero bytes after the delimiter")
        } catch {
            let padding: Set<WebPushError.Reason> = [.missingDelimiter, .misplacedDelimiter, .nonZeroPadding]
            precondition(padding.contains(error.reason), "unexpected reason \(error.reason)")
            precondition(bytes.last(where: { $0 != 0 }) != 0x02, "a record ending in its delimiter was refused")
        }
    case 3:
        let payload = WebPushContent.standard(bytes)
        precondition((payload == nil) == (String(validating: bytes, as: UTF8.self) == nil), "mapped iff UTF-8")
        if let payload {
            let aps = payload["aps"]?.objectValue
            precondition(aps != nil, "a mapped payload without aps")
            if let badge = aps?["badge"], (try? JSONParser.parse(bytes))?.objectValue?["aps"] == nil {
                precondition((badge.numberValue?.intValue ?? -1) >= 0, "a badge that is not a count")
            }
        }
    default:
        guard bytes.count <= WebPushMessage.maximumContentByteCount else { return 0 }
        do {
            let block = Int(bytes.first ?? 0) % 200 + 1
            let body = try WebPushMessage.seal(bytes, for: subscription, paddingBlock: block)
            precondition(body.count <= WebPushMessage.maximumByteCount, "a sealed message exceeds 4,096 bytes")
            let opened = try WebPushMessage.open(body, with: receiver)
            precondition(opened == bytes, "sealed content did not come back")
        } catch {
            preconditionFailure("sealing and opening \(bytes.count) bytes failed: \(error)")
        }
    }
    return 0
}
