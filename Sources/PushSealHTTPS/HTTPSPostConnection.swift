#if canImport(CLibSSL)
    package import PushSealURL

    /// POSTs over one kept-alive HTTP/1.1 connection, one request at a time, for servers that do
    /// not speak HTTP/2 (Web Push services among them). Each exchange keeps its own deadline; a
    /// response body is read whole, up to a cap, so that the connection is ready for the next
    /// request. Once the server closes, says it will, or frames a body until close, or an exchange
    /// fails, ``isReusable`` is false and the caller opens a new connection.
    package final class HTTPSPostConnection {
        /// One answer.
        package struct Response: Sendable {
            /// The final status.
            package let status: Int
            /// `Retry-After`, as sent.
            package let retryAfter: String?
            /// `Location`, as sent.
            package let location: String?
            /// The body, cut to the cap.
            package let body: [UInt8]
        }

        private let url: HTTPSURL
        private let connection: TLSConnection
        private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 1)
        /// Whether another request may be sent on this connection.
        package private(set) var isReusable = true

        /// Connects to `url`'s origin (local addresses refused unless `allowLocal`), with ALPN
        /// `http/1.1`.
        package init(to url: HTTPSURL, context: TLSContext, allowLocal: Bool, wait: TransferWait)
            throws(HTTPSFailure)
        {
            self.url = url
            connection = try TLSConnection.open(to: url, context: context, allowLocal: allowLocal, wait: wait)
        }

        deinit { buffer.deallocate() }

        /// Sends `POST target` with `headers` and `body`, and reads the answer within `wait`.
        /// - Parameter maximumBody: the most of the response body kept; the rest is read and dropped.
        /// - Throws: ``HTTPSFailure``; the connection is then not reusable.
        package func post(
            target: String, headers: [(name: String, value: String)], body: [UInt8], maximumBody: Int,
            wait: TransferWait
        ) throws(HTTPSFailure) -> Response {
            guard isReusable else { throw HTTPSFailure(.unreachable, "the connection is closed") }
            isReusable = false
            connection.wait = wait
            var head = "POST \(target) HTTP/1.1\r\nHost: \(url.authority)\r\nUser-Agent: pushseal\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            head += "Content-Length: \(body.count)\r\n\r\n"
            try connection.write(Array(head.utf8) + body)
            let (response, arrived) = try connection.readHead(into: buffer)
            var kept: [UInt8] = []
            try connection.readBody(response.framing, buffer, arrived: arrived) { block in
                kept += block.prefix(max(0, maximumBody - kept.count))
                return true
            }
            if case .untilClose = response.framing {} else { isReusable = !response.closesConnection }
            return Response(
                status: response.status, retryAfter: response.retryAfter, location: response.location, body: kept)
        }
    }
#endif
