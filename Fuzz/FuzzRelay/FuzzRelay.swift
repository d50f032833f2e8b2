// libFuzzer target: arbitrary bytes as what a Web Push sender posts to a relay endpoint.
//
// The input is header lines (`Name: value`, up to an empty line) and then the body. They go
// through the relay's checks as `POST /v1/webpush/{id}` runs them (RFC 8030's headers, the
// aes128gcm header or the legacy aesgcm's Encryption and Crypto-Key headers, RFC 8030's size
// limit; a VAPID check, in both of its forms, against a pinned key), and through the forwarded
// payload the extension opens. Beyond "no crash": no token passes the VAPID check without the
// pinned key's signature; an accepted message is at most what a fetched one may be, one short
// enough to forward in the push fits APNs' 4,096 bytes once forwarded and reads back byte for
// byte (an aesgcm one as a frame whose record is the body); a refusal has a status the contract
// lists.
import PushSealCore
import PushSealGateway

/// One fuzz input: a request's headers, then its body.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRelay(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var headers: [String: String] = [:]
    var rest = bytes[...]
    while let newline = rest.firstIndex(of: 0x0A) {
        let line = String(decoding: rest[rest.startIndex..<newline], as: UTF8.self)
        rest = rest[(newline + 1)...]
        guard !line.isEmpty, let colon = line.firstIndex(of: ":") else { break }
        headers[line[..<colon].lowercased()] = String(line[line.index(after: colon)...].drop { $0 == " " })
    }
    let vapid = RelayChecks.vapidStatus(authorization: headers["authorization"], cryptoKey: headers["crypto-key"])
    precondition(vapid == 401 || vapid == 403, "a VAPID token passed without the pinned key's signature")
    let body = Array(rest)
    let (status, forwarded) = RelayChecks.messageStatus(headers: headers, body: body)
    precondition([201, 400, 413].contains(status), "a status outside the contract: \(status)")
    if let (message, coding) = forwarded {
        precondition(message.count <= coding.maximumByteCount, "more than a fetched message may hold")
        // What is longer is kept to fetch; what is not is forwarded in the push.
        let inline = ForwardedWebPush.maximumMessageByteCount(placeholder: RelayChecks.placeholder, coding: coding)
        guard message.count <= inline else { return 0 }
        let payload = ForwardedWebPush.payload(
            message: message, coding: coding, endpoint: "AAAAAAAA", placeholder: RelayChecks.placeholder)
        precondition(JSONWriter.bytes(.object(payload)).count <= ForwardedWebPush.apnsLimit, "over APNs' limit")
        let readBack = try? ForwardedWebPush.message(in: payload)
        precondition(readBack?.bytes == message && readBack?.coding == coding, "the message does not read back")
        switch coding {
        case .aes128gcm: precondition(message == body, "an aes128gcm message is not forwarded as posted")
        case .aesgcm:
            precondition((try? AESGCMMessage(frame: message))?.record == body, "the frame does not hold the body")
        }
    }
    return 0
}
