// libFuzzer target: arbitrary bytes as what a Web Push sender posts to a relay endpoint.
//
// The input is header lines (`Name: value`, up to an empty line) and then the body. They go
// through the relay's checks as `POST /v1/webpush/{id}` runs them (RFC 8030's headers, the
// aes128gcm header, the size limit; a VAPID check against a pinned key), and through the
// forwarded payload the extension opens. Beyond "no crash": no token passes the VAPID check
// without the pinned key's signature; an accepted message fits APNs' 4,096 bytes once forwarded
// and reads back byte for byte; a refusal has a status the contract lists.
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
    let vapid = RelayChecks.vapidStatus(authorization: headers["authorization"])
    precondition(vapid == 401 || vapid == 403, "a VAPID token passed without the pinned key's signature")
    let status = RelayChecks.messageStatus(headers: headers, body: Array(rest))
    precondition([201, 400, 413].contains(status), "a status outside the contract: \(status)")
    if status == 201 {
        let payload = ForwardedWebPush.payload(
            message: Array(rest), endpoint: "AAAAAAAA", placeholder: RelayChecks.placeholder)
        precondition(JSONWriter.bytes(.object(payload)).count <= ForwardedWebPush.apnsLimit, "over APNs' limit")
        precondition((try? ForwardedWebPush.message(in: payload)) == Array(rest), "the message does not read back")
    }
    return 0
}
