import PushSealHTTPS
import Testing

@Suite("Chunked bodies")
struct ChunkedDecoderTests {
    /// Decodes `wire` fed in pieces of `piece` bytes.
    private func decode(_ wire: String, piece: Int) throws -> (body: String, finished: Bool) {
        var decoder = ChunkedDecoder()
        var body: [UInt8] = []
        let bytes = Array(wire.utf8)
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + piece)
            _ = try Array(bytes[offset..<end]).withUnsafeBytes { raw in
                try decoder.feed(raw) {
                    body += $0; return true
                }
            }
            offset = end
        }
        return (String(decoding: body, as: UTF8.self), decoder.isFinished)
    }

    @Test("chunks, extensions and trailers, fed whole or a byte at a time")
    func decoded() throws {
        let wire = "5\r\nhello\r\n7;name=value\r\n, world\r\nA \r\n0123456789\r\n0\r\nTrailer: x\r\n\r\nafter"
        for piece in [1, 2, 3, 7, 1000] {
            let (body, finished) = try decode(wire, piece: piece)
            #expect(body == "hello, world0123456789" && finished, "piece \(piece)")
        }
        let (partial, finished) = try decode("5\r\nhel", piece: 100)
        #expect(partial == "hel" && !finished)
    }

    @Test(
        "a broken chunked body is refused",
        arguments: [
            "g\r\nx\r\n0\r\n\r\n", "\r\n", "-1\r\n", "+1\r\nx\r\n", "5\nhello\r\n", "5\r\nhelloXX0\r\n\r\n",
            "1234567890abcdef0\r\n", String(repeating: "0", count: 2000),
        ])
    func refused(_ wire: String) {
        #expect(throws: HTTPSFailure.self, "\(wire.debugDescription)") { try decode(wire, piece: 3) }
    }

    @Test("the body handler can stop the decoding")
    func stopped() throws {
        var decoder = ChunkedDecoder()
        let wire = Array("3\r\nabc\r\n3\r\ndef\r\n0\r\n\r\n".utf8)
        var calls = 0
        let going = try wire.withUnsafeBytes { raw in
            try decoder.feed(raw) { _ in
                calls += 1; return false
            }
        }
        #expect(!going && calls == 1 && !decoder.isFinished)
    }
}
