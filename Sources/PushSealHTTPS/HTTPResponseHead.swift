internal import PushSealURL

/// The head of an HTTP/1.1 response: its status, how its body is framed, and where a redirect
/// points. Parsed strictly (RFC 9112), since the server may be hostile: a status line, then header
/// lines each ended by CRLF, no line folding, one agreed `Content-Length`, no `Content-Length`
/// beside `Transfer-Encoding` (the ambiguity request smuggling lives on), and `chunked` as the
/// only transfer coding (the request asks for `identity`).
package struct HTTPResponseHead: Equatable, Sendable {
    /// How the body's end is known.
    package enum Framing: Equatable, Sendable {
        /// Exactly this many bytes (zero for 1xx, 204 and 304).
        case length(Int)
        /// The chunked transfer coding.
        case chunked
        /// Until the server closes the connection.
        case untilClose
    }

    /// The most bytes a head may take, its final empty line included.
    package static let maximumByteCount = 16_384

    /// The status code, 100 to 599.
    package let status: Int
    /// How the body is framed.
    package let framing: Framing
    /// The `Location` header, if there is one.
    package let location: String?
    /// The `Retry-After` header, if there is one (RFC 8030 push services send it with 429 and 503).
    package let retryAfter: String?
    /// Whether the connection ends after this response (RFC 9112 §9.3): the server said
    /// `Connection: close`, or answered as HTTP/1.0 without the `keep-alive` option (HTTP/1.0's
    /// default is to close).
    package let closesConnection: Bool

    /// Whether the status asks the client to repeat the request at `location`.
    package var isRedirect: Bool { [301, 302, 303, 307, 308].contains(status) }

    /// Where the head ends in `bytes`: the index just past its empty line, or nil if it has not
    /// arrived yet.
    package static func end(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count
        where bytes[index] == 0x0A && bytes[index - 1] == 0x0D && bytes[index - 2] == 0x0A && bytes[index - 3] == 0x0D {
            return index + 1
        }
        return nil
    }

    /// Parses a complete head: `bytes` ends with its empty line.
    /// - Throws: `malformed`, naming the line at fault.
    package init(parsing bytes: ArraySlice<UInt8>) throws(HTTPSFailure) {
        guard bytes.count <= Self.maximumByteCount else {
            throw HTTPSFailure(.malformed, "the response head is over \(Self.maximumByteCount) bytes")
        }
        var lines = try Self.lines(bytes)
        guard lines.last == [], lines.count >= 2 else {
            throw HTTPSFailure(.malformed, "the response head does not end with an empty line")
        }
        lines.removeLast()
        let isHTTP10: Bool
        (status, isHTTP10) = try Self.statusLine(lines.removeFirst())
        var lengths: Set<Int> = []
        var codings: [String] = []
        var locations: [String] = []
        var retryAfter: String?
        var options: Set<String> = []
        for (number, line) in lines.enumerated() {
            let (name, value) = try Self.field(line, number: number + 2)
            switch name {
            case "content-length":
                for item in value.split(separator: ",", omittingEmptySubsequences: false) {
                    let digits = item.trimmingSpaces
                    guard (1...15).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                        let length = Int(digits)
                    else { throw HTTPSFailure(.malformed, "Content-Length \(value) is not a length") }
                    lengths.insert(length)
                }
            case "transfer-encoding":
                let items = value.split(separator: ",", omittingEmptySubsequences: false).map {
                    $0.trimmingSpaces.lowercased()
                }
                guard !items.contains("") else {
                    throw HTTPSFailure(.malformed, "Transfer-Encoding \"\(value)\" has an empty coding")
                }
                codings += items
            case "location": locations.append(value)
            case "retry-after": retryAfter = value
            case "connection":
                for option in value.split(separator: ",") { options.insert(option.trimmingSpaces.lowercased()) }
            default: break
            }
        }
        guard lengths.count <= 1 else { throw HTTPSFailure(.malformed, "Content-Length headers disagree") }
        guard locations.count <= 1 else { throw HTTPSFailure(.malformed, "more than one Location header") }
        location = locations.first
        self.retryAfter = retryAfter
        closesConnection = options.contains("close") || (isHTTP10 && !options.contains("keep-alive"))
        guard status != 101 else {
            // The request asks for no upgrade, so a switch is never an interim response to skip.
            throw HTTPSFailure(.malformed, "101 Switching Protocols answers a request that asked for no upgrade")
        }
        if (100..<200).contains(status) || status == 204 || status == 304 {
            framing = .length(0)
        } else if !codings.isEmpty {
            guard codings == ["chunked"] else {
                throw HTTPSFailure(.malformed, "Transfer-Encoding \(codings.joined(separator: ", ")) is not chunked")
            }
            guard lengths.isEmpty else {
                throw HTTPSFailure(.malformed, "both Transfer-Encoding and Content-Length are set")
            }
            framing = .chunked
        } else if let length = lengths.first {
            framing = .length(length)
        } else {
            framing = .untilClose
        }
    }

    /// The head's lines, each without its CRLF; a bare LF or CR is refused.
    private static func lines(_ bytes: ArraySlice<UInt8>) throws(HTTPSFailure) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        var index = bytes.startIndex
        while index < bytes.endIndex {
            switch bytes[index] {
            case 0x0D:
                guard index + 1 < bytes.endIndex, bytes[index + 1] == 0x0A else {
                    throw HTTPSFailure(.malformed, "a bare CR in line \(lines.count + 1) of the response head")
                }
                lines.append(bytes[start..<index])
                index += 2
                start = index
            case 0x0A: throw HTTPSFailure(.malformed, "a bare LF in line \(lines.count + 1) of the response head")
            default: index += 1
            }
        }
        guard start == bytes.endIndex else {
            throw HTTPSFailure(.malformed, "the response head's last line has no CRLF")
        }
        return lines
    }

    /// `HTTP/1.x SP 3DIGIT SP reason`: the status, and whether the version is HTTP/1.0.
    private static func statusLine(_ line: ArraySlice<UInt8>) throws(HTTPSFailure) -> (Int, Bool) {
        let text = String(decoding: line, as: UTF8.self)
        let parts = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0] == "HTTP/1.1" || parts[0] == "HTTP/1.0", parts[1].count == 3,
            parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), let status = Int(parts[1]), (100...599).contains(status)
        else { throw HTTPSFailure(.malformed, "the status line \(text.debugDescription) is not HTTP/1.x") }
        return (status, parts[0] == "HTTP/1.0")
    }

    /// `name ":" OWS value OWS`, the name a token (lowercased here), the value visible ASCII and spaces.
    private static func field(_ line: ArraySlice<UInt8>, number: Int) throws(HTTPSFailure) -> (String, String) {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
            line[..<colon].allSatisfy(HTTPToken.isCharacter)
        else { throw HTTPSFailure(.malformed, "line \(number) of the response head is not a header field") }
        let value = line[(colon + 1)...]
        guard value.allSatisfy({ $0 == 0x09 || (0x20...0x7E).contains($0) || $0 >= 0x80 }) else {
            throw HTTPSFailure(.malformed, "line \(number) of the response head has a control character")
        }
        return (
            String(decoding: line[..<colon], as: UTF8.self).lowercased(),
            String(String(decoding: value, as: UTF8.self).trimmingSpaces)
        )
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (HTTP's OWS).
    fileprivate var trimmingSpaces: Substring {
        let text = Substring(self)
        let start = text.firstIndex { $0 != " " && $0 != "\t" } ?? text.endIndex
        let end = text.lastIndex { $0 != " " && $0 != "\t" }.map { text.index(after: $0) } ?? start
        return text[start..<Swift.max(start, end)]
    }
}
