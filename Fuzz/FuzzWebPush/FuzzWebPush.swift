// libFuzzer target: arbitrary bytes through webpush-v1.md's opening rules.
//
// The first byte picks what the rest is: 0, a message to open; 1, a decrypted record, through the
// delimiter and padding rule alone (the part a fuzzer cannot reach through AES-GCM); 2, content
// to seal and open again; 3, opened content through the extension's standard mapping (Declarative
// Web Push, Mastodon's shape, APNs payloads, text); and for the legacy aesgcm coding, 4, a frame
// to open; 5, a decrypted record through its padding-length rule; 6, content to seal and open
// again. Beyond "no crash", every refusal must carry a reason opening can give, a record's content
// must end where its 0x02 delimiter stands with only zeros after it (in aesgcm, start after its
// padding length and that many zeros), sealed content must come back unchanged, and the mapping
// must give an APNs payload (an `aps` object, any badge a count, never Mastodon's access_token)
// for every UTF-8 content and nothing for the rest.
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

/// The reasons opening a legacy aesgcm frame may give.
let aesgcmOpeningReasons: Set<WebPushError.Reason> = [
    .messageTooLarge, .malformedHeader, .invalidRecordSize, .invalidSenderKey, .multipleRecords, .decryptionFailed,
    .paddingTooLong, .nonZeroPadding,
]

/// One fuzz input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebPush(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let mode = data[0]
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    switch mode % 8 {
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
            if let content = (try? JSONParser.parse(bytes))?.objectValue, content["aps"] == nil,
                MastodonNotification.payload(content) != nil
            {
                precondition(payload[MastodonNotification.tokenMember] == nil, "Mastodon's access_token was kept")
            }
            if let badge = aps?["badge"], (try? JSONParser.parse(bytes))?.objectValue?["aps"] == nil {
                precondition((badge.numberValue?.intValue ?? -1) >= 0, "a badge that is not a count")
            }
        }
    case 4:
        do {
            _ = try WebPushCoding.aesgcm.open(bytes, with: receiver)
        } catch {
            precondition(aesgcmOpeningReasons.contains(error.reason), "unexpected aesgcm reason \(error.reason)")
        }
    case 5:
        do {
            let start = try AESGCMMessage.contentStart(bytes)
            let length = Int(bytes[0]) << 8 | Int(bytes[1])
            precondition(start == 2 + length, "the content does not start after the padding")
            precondition(bytes[2..<start].allSatisfy { $0 == 0 }, "non-zero padding was accepted")
        } catch {
            precondition(
                [.paddingTooLong, .nonZeroPadding].contains(error.reason), "unexpected reason \(error.reason)")
        }
    case 6:
        let padding = Int(bytes.first ?? 0) * 3
        guard bytes.count + padding + 18 <= WebPushMessage.maximumByteCount else { return 0 }
        do {
            let message = try AESGCMMessage.seal(bytes, for: subscription, padding: padding)
            let (opened, _) = try WebPushCoding.aesgcm.open(message.frame, with: receiver)
            precondition(opened == bytes, "sealed aesgcm content did not come back")
        } catch {
            preconditionFailure("sealing and opening \(bytes.count) bytes as aesgcm failed: \(error)")
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
