// libFuzzer target: arbitrary bytes as what a server sends back, through PushSealHTTPS's parsers.
//
// The response head is parsed; a chunked body is decoded twice, whole and a byte at a time, and
// the two must agree; a Location is resolved against a base URL, and what comes out must print
// as a URL that parses back to itself. The input is also read whole as a URL under the media URL
// rule (PushSealURL), which the sealer and the fetcher share: whatever it accepts must print as a
// URL that parses back to itself, with a numeric host only in canonical dotted decimal. Beyond
// "no crash", these are the properties checked.
import PushSealHTTPS
import PushSealURL

private let base: HTTPSURL = {
    guard let url = try? HTTPSURL("https://cdn.example/a/b/object.psm?v=1") else { preconditionFailure("the base URL") }
    return url
}()

/// One fuzz input: a response (head, then body).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    checkURLRule(String(decoding: bytes, as: UTF8.self))
    guard let end = HTTPResponseHead.end(in: bytes), let head = try? HTTPResponseHead(parsing: bytes[..<end]) else {
        return 0
    }
    precondition((100...599).contains(head.status), "a status out of range was accepted")
    if let location = head.location, let url = try? base.resolving(location) {
        precondition(url.target.hasPrefix("/"), "a request target without its slash")
        precondition((try? HTTPSURL(url.description)) == url, "\(url) does not parse back to itself")
    }
    if head.framing == .chunked {
        let body = Array(bytes[end...])
        precondition(decoded(body, piece: body.count) == decoded(body, piece: 1), "piecewise decoding differs")
    }
    return 0
}

/// The media URL rule on arbitrary text: an accepted URL round-trips, and its host, if numeric,
/// is canonical dotted decimal (what `getaddrinfo` and OpenSSL read alike).
private func checkURLRule(_ text: String) {
    guard let url = try? HTTPSURL(text) else { return }
    precondition((try? HTTPSURL(url.description)) == url, "\(url) does not parse back to itself")
    let parts = url.host.split(separator: ".", omittingEmptySubsequences: false)
    let last = parts.last(where: { !$0.isEmpty }) ?? ""
    if !url.host.contains(":"), !last.isEmpty, last.allSatisfy(\.isNumber) || last.hasPrefix("0x") {
        precondition(
            parts.count == 4 && parts.allSatisfy { String(Int($0) ?? -1) == $0 && (Int($0) ?? 256) <= 255 },
            "the numeric host \(url.host) is not canonical")
    }
}

/// What a chunked body decodes to.
private struct Decoded: Equatable {
    let data: [UInt8]
    let finished: Bool
}

/// The chunked body's data and whether it finished, or nil if refused, fed in pieces of `piece` bytes.
private func decoded(_ body: [UInt8], piece: Int) -> Decoded? {
    var decoder = ChunkedDecoder()
    var data: [UInt8] = []
    var offset = 0
    while offset < body.count {
        let end = min(body.count, offset + max(piece, 1))
        let accepted = body[offset..<end].withUnsafeBytes { raw in
            (try? decoder.feed(raw) {
                data += $0; return true
            }) != nil
        }
        guard accepted else { return nil }
        offset = end
    }
    precondition(data.count <= body.count, "more data out than bytes in")
    return Decoded(data: data, finished: decoder.isFinished)
}
