import PushSealHTTPS
import Testing

@Suite("HTTP response heads")
struct HTTPResponseHeadTests {
    private func head(_ lines: String...) throws(HTTPSFailure) -> HTTPResponseHead {
        let bytes = Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
        #expect(HTTPResponseHead.end(in: bytes) == bytes.count)
        return try HTTPResponseHead(parsing: bytes[...])
    }

    @Test("status, framing and location")
    func parsed() throws {
        let ok = try head("HTTP/1.1 200 OK", "Content-Type: video/mp4", "Content-Length:  1234 ")
        #expect(ok.status == 200 && ok.framing == .length(1234) && ok.location == nil && !ok.isRedirect)
        let chunked = try head("HTTP/1.1 200 OK", "Transfer-Encoding: Chunked")
        #expect(chunked.framing == .chunked)
        let untilClose = try head("HTTP/1.0 200", "Server: x")
        #expect(untilClose.framing == .untilClose)
        let moved = try head("HTTP/1.1 302 Found", "Location: /elsewhere", "Content-Length: 0")
        #expect(moved.isRedirect && moved.location == "/elsewhere")
        #expect(try head("HTTP/1.1 304 Not Modified", "Content-Length: 99").framing == .length(0))
        #expect(try head("HTTP/1.1 200 OK", "Content-Length: 7, 7").framing == .length(7))
    }

    @Test("the connection's end: HTTP/1.0 closes unless kept alive, HTTP/1.1 stays open unless closed")
    func connectionSemantics() throws {
        #expect(try head("HTTP/1.0 204 No Content").closesConnection)
        #expect(try head("HTTP/1.0 200 OK", "Content-Length: 0", "Connection: Keep-Alive").closesConnection == false)
        #expect(try head("HTTP/1.0 200 OK", "Content-Length: 0", "Connection: keep-alive, close").closesConnection)
        #expect(try head("HTTP/1.1 204 No Content").closesConnection == false)
        #expect(try head("HTTP/1.1 204 No Content", "Connection: upgrade", "connection: CLOSE").closesConnection)
    }

    @Test(
        "a head that is ambiguous or broken is refused",
        arguments: [
            ["HTTP/2 200"], ["HTTP/1.1 20 OK"], ["HTTP/1.1 600 No"], ["ICY 200 OK"], ["HTTP/1.1 2000 OK"],
            ["HTTP/1.1 200 OK", "Content-Length: 5", "Content-Length: 6"],
            ["HTTP/1.1 200 OK", "Content-Length: 5, 6"],
            ["HTTP/1.1 200 OK", "Content-Length: -1"],
            ["HTTP/1.1 200 OK", "Content-Length: 0x10"],
            ["HTTP/1.1 200 OK", "Content-Length: 99999999999999999999"],
            ["HTTP/1.1 200 OK", "Transfer-Encoding: gzip, chunked"],
            ["HTTP/1.1 200 OK", "Transfer-Encoding: chunked", "Content-Length: 5"],
            ["HTTP/1.1 302 Found", "Location: /a", "Location: /b"],
            ["HTTP/1.1 200 OK", " folded: line"],
            ["HTTP/1.1 200 OK", "No colon here"],
            ["HTTP/1.1 200 OK", "Bad Name: x"],
            ["HTTP/1.1 200 OK", "X: a\u{7}b"],
            // An empty coding is no coding: it must not let Content-Length stand beside it.
            ["HTTP/1.1 200 OK", "Transfer-Encoding:", "Content-Length: 5"],
            ["HTTP/1.1 200 OK", "Transfer-Encoding: ", "Content-Length: 5"],
            ["HTTP/1.1 200 OK", "Transfer-Encoding: chunked,", "Content-Length: 5"],
            ["HTTP/1.1 200 OK", "Transfer-Encoding: ,chunked"],
            // Nothing asked to switch protocols: a 101 is not an interim response to skip.
            ["HTTP/1.1 101 Switching Protocols", "Upgrade: h2c", "Connection: Upgrade"],
        ])
    func refused(_ lines: [String]) {
        let bytes = Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
        #expect(throws: HTTPSFailure.self, "\(lines)") { try HTTPResponseHead(parsing: bytes[...]) }
    }

    @Test("bare LF or CR line ends, and heads over 16 KiB, are refused")
    func lineEnds() {
        for text in ["HTTP/1.1 200 OK\nA: b\r\n\r\n", "HTTP/1.1 200 OK\r\nA: b\rc\r\n\r\n"] {
            #expect(throws: HTTPSFailure.self) { try HTTPResponseHead(parsing: Array(text.utf8)[...]) }
        }
        let huge = Array(("HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 16_400) + "\r\n\r\n").utf8)
        #expect(throws: HTTPSFailure.self) { try HTTPResponseHead(parsing: huge[...]) }
        #expect(HTTPResponseHead.end(in: Array("HTTP/1.1 200 OK\r\n".utf8)) == nil)
    }
}
