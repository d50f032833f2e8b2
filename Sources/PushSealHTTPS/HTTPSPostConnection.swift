#if canImport(CLibSSL)
    package import PushSealURL

    /// POSTs over one kept-alive HTTP/1.1 connection, one request at a time, for servers that do
    /// not speak HTTP/2 (Web Push services among them, and webhook receivers). Each exchange keeps
    /// its own deadline. A response body is read up to a cap and no further: past it, reading
    /// stops and the connection is not used again, so a server cannot make the client read (or
    /// wait for) more than the cap. Once the server closes, says it will (`Connection: close`, or
    /// an HTTP/1.0 answer without `keep-alive`), frames a body until close, or an exchange fails,
    /// ``isReusable`` is false and the caller opens a new connection (``HTTP1PostClient`` does).
    package final class HTTPSPostConnection {
        /// One answer.
        package struct Response: Sendable {
            /// The final status.
            package let status: Int
            /// `Retry-After`, as sent.
            package let retryAfter: String?
            /// `Location`, as sent.
            package let location: String?
            /// The body, up to the cap (what came before the cap, when it went past it).
            package let body: [UInt8]
            /// The body went on past the cap: reading stopped there, and the connection was dropped.
            package let bodyExceeded: Bool
        }

        private let url: HTTPSURL
        private let connection: TLSConnection
        private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 1)
        /// Whether another request may be sent on this connection.
        package private(set) var isReusable = true
        /// Whether the last exchange failed because the connection was closed (or reset) before a
        /// byte of its answer came: on a kept-alive connection, the server most likely closed it
        /// while idle and never read the request, so it may be sent again on a fresh connection.
        package private(set) var closedBeforeAnswering = false

        /// Connects to `url`'s origin (local addresses refused unless `allowLocal`), with ALPN
        /// `http/1.1`.
        package init(to url: HTTPSURL, context: TLSContext, allowLocal: Bool, wait: TransferWait)
            throws(HTTPSFailure)
        {
            self.url = url
            connection = try TLSConnection.open(to: url, context: context, allowLocal: allowLocal, wait: wait)
        }

        deinit { buffer.deallocate() }

        /// Whether the connection can carry the next request now: reusable after the last answer,
        /// and not closed by the server (nor sent anything unasked) while it was idle.
        package var isReadyForReuse: Bool { isReusable && connection.isOpenAndIdle() }

        /// Sends `POST target` with `headers` and `body`, and reads the answer within `wait`.
        /// - Parameter maximumBody: the most of the response body read; past it reading stops
        ///   (``Response/bodyExceeded``).
        /// - Throws: ``HTTPSFailure``; the connection is then not reusable, and
        ///   ``closedBeforeAnswering`` says whether the server closed it before answering.
        package func post(
            target: String, headers: [(name: String, value: String)], body: [UInt8], maximumBody: Int,
            wait: TransferWait
        ) throws(HTTPSFailure) -> Response {
            guard isReusable else { throw HTTPSFailure(.unreachable, "the connection is closed") }
            isReusable = false
            closedBeforeAnswering = false
            connection.wait = wait
            let readBefore = connection.bytesRead
            var head = "POST \(target) HTTP/1.1\r\nHost: \(url.authority)\r\nUser-Agent: pushseal\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            head += "Content-Length: \(body.count)\r\n\r\n"
            let response: HTTPResponseHead
            let arrived: Int
            do {
                try connection.write(Array(head.utf8) + body)
                (response, arrived) = try connection.readHead(into: buffer)
            } catch {
                closedBeforeAnswering = error.kind == .unreachable && connection.bytesRead == readBefore
                throw error
            }
            var kept: [UInt8] = []
            var exceeded = false
            do {
                try connection.readBody(response.framing, buffer, arrived: arrived) { block in
                    let room = maximumBody - kept.count
                    kept += block.prefix(room)
                    exceeded = block.count > room
                    return !exceeded
                }
            } catch {
                guard exceeded else { throw error }
            }
            if !exceeded, response.framing != .untilClose { isReusable = !response.closesConnection }
            return Response(
                status: response.status, retryAfter: response.retryAfter, location: response.location, body: kept,
                bodyExceeded: exceeded)
        }
    }
#endif
