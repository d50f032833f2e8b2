#if canImport(CLibSSL)
    /// HTTP/1.1 responses read from a connection, for the GET of media downloads and the POSTs
    /// of Web Push: a head (RFC 9112, parsed strictly) and a body framed as the head says.
    extension TLSConnection {
        /// Reads up to the end of a final head (interim 1xx heads are skipped).
        /// - Returns: the head, and how many body bytes arrived with it (now at the start of `buffer`).
        func readHead(into buffer: UnsafeMutableRawBufferPointer) throws(HTTPSFailure) -> (HTTPResponseHead, Int) {
            var received: [UInt8] = []
            while true {
                if let end = HTTPResponseHead.end(in: received) {
                    let head = try HTTPResponseHead(parsing: received[..<end])
                    received.removeFirst(end)
                    if (100..<200).contains(head.status) { continue }
                    buffer.copyBytes(from: received)
                    return (head, received.count)
                }
                guard received.count < HTTPResponseHead.maximumByteCount else {
                    throw HTTPSFailure(
                        .malformed, "the response head is over \(HTTPResponseHead.maximumByteCount) bytes")
                }
                let count = try read(
                    into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<HTTPResponseHead.maximumByteCount]))
                guard count > 0 else {
                    throw HTTPSFailure(.unreachable, "the server closed the connection before answering")
                }
                received += buffer[..<count]
            }
        }

        /// Reads the body as `framing` says, block by block, into `body`; the first `arrived`
        /// bytes are already in `buffer`.
        func readBody(
            _ framing: HTTPResponseHead.Framing, _ buffer: UnsafeMutableRawBufferPointer, arrived: Int,
            body: (UnsafeRawBufferPointer) -> Bool
        ) throws(HTTPSFailure) {
            var remaining: Int?
            var chunked: ChunkedDecoder?
            switch framing {
            case .length(let length): remaining = length
            case .chunked: chunked = ChunkedDecoder()
            case .untilClose: break
            }
            var count = arrived
            var delivered = 0
            while true {
                let bytes = UnsafeRawBufferPointer(rebasing: buffer[..<count])
                if var decoder = chunked {
                    guard try decoder.feed(bytes, body: body) else {
                        throw HTTPSFailure(.stopped, "stopped in the body")
                    }
                    if decoder.isFinished { return }
                    chunked = decoder
                } else {
                    let used = min(count, remaining ?? count)
                    guard used == 0 || body(UnsafeRawBufferPointer(rebasing: bytes[..<used])) else {
                        throw HTTPSFailure(.stopped, "stopped in the body")
                    }
                    remaining = remaining.map { $0 - used }
                    if remaining == 0 { return }
                }
                delivered += count
                count = try read(into: buffer)
                if count == 0 {
                    guard chunked == nil && remaining == nil else {
                        throw HTTPSFailure(
                            .unreachable, "the connection closed after \(delivered) bytes, before the body's end")
                    }
                    return
                }
            }
        }
    }
#endif
