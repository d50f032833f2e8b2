#if canImport(CLibSSL)
    import PushSealURL

    /// One HTTPS GET, streamed in constant memory: HTTP/1.1 over OpenSSL's TLS client, redirects
    /// followed only to https and at most ``maximumRedirects`` times, every wait bounded by the
    /// deadline. The caller sees the final response's status and declared length, then its body
    /// block by block, and may stop at either.
    ///
    /// It asks for `Accept-Encoding: identity` and `Connection: close`: one request per
    /// connection, and the body as the server stores it. Headers of the caller's (a bearer
    /// capability) go to the URL itself alone: a redirect is followed without them.
    package struct HTTPSGet {
        /// Where to start.
        package let url: String
        /// Certificates to trust instead of the system's (a test server's).
        package let caFile: String?
        /// How many redirects to follow.
        package let maximumRedirects: Int
        /// Whether loopback, private, link-local and unique-local addresses may be connected to
        /// (a test server, a support engineer's own mirror); never, by default.
        package let allowsLocalDestinations: Bool
        /// More request headers, sent to ``url`` alone, never to a redirect's target.
        package let headers: [(name: String, value: String)]

        /// The read buffer's size: the most bytes handed to the body handler at once.
        static let blockByteCount = 65_536

        /// A GET of `url`, with `headers` besides the usual ones.
        package init(
            url: String, caFile: String? = nil, maximumRedirects: Int = 3, allowsLocalDestinations: Bool = false,
            headers: [(name: String, value: String)] = []
        ) {
            self.url = url
            self.headers = headers
            self.caFile = caFile
            self.maximumRedirects = maximumRedirects
            self.allowsLocalDestinations = allowsLocalDestinations
        }

        /// Runs the request to the end of the final response's body.
        /// - Parameters:
        ///   - wait: the deadline and the cancellation flag.
        ///   - response: the final status and the declared `Content-Length` (nil if chunked or
        ///     until close); false stops.
        ///   - body: each block of the body; false stops.
        /// - Throws: ``HTTPSFailure``; `stopped` when a handler stopped the transfer.
        package func run(
            wait: TransferWait, response: (_ status: Int, _ length: Int?) -> Bool,
            body: (UnsafeRawBufferPointer) -> Bool
        ) throws(HTTPSFailure) {
            guard
                headers.allSatisfy({ header in
                    !header.name.isEmpty && header.name.utf8.allSatisfy(HTTPToken.isCharacter)
                        && !header.value.utf8.contains { $0 < 0x20 || $0 == 0x7F }
                })
            else { throw HTTPSFailure(.malformed, "a request header has a bad name or a control character") }
            var location: HTTPSURL
            do {
                location = try HTTPSURL(url)
            } catch {
                throw HTTPSFailure(error)
            }
            let context = try TLSContext(caFile: caFile)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.blockByteCount, alignment: 1)
            defer { buffer.deallocate() }
            var redirects = 0
            while true {
                let connection = try TLSConnection.open(
                    to: location, context: context, allowLocal: allowsLocalDestinations, wait: wait)
                try connection.write(Array(request(for: location, withHeaders: redirects == 0).utf8))
                let (head, arrived) = try connection.readHead(into: buffer)
                if head.isRedirect, let target = head.location {
                    guard redirects < maximumRedirects else {
                        throw HTTPSFailure(.tooManyRedirects, "more than \(maximumRedirects) redirects")
                    }
                    redirects += 1
                    do {
                        location = try location.resolving(target)
                    } catch {
                        // media-v1: a redirect that leaves https or breaks the URL rule is insecure.
                        throw HTTPSFailure(.insecure, "a redirect breaks the media URL rule: \(error.detail)")
                    }
                    continue
                }
                var declared: Int?
                if case .length(let length) = head.framing { declared = length }
                guard response(head.status, declared) else { throw HTTPSFailure(.stopped, "stopped at the response") }
                try connection.readBody(head.framing, buffer, arrived: arrived, body: body)
                return
            }
        }

        private func request(for location: HTTPSURL, withHeaders: Bool) -> String {
            let more = withHeaders ? headers.map { "\($0.name): \($0.value)\r\n" }.joined() : ""
            return "GET \(location.target) HTTP/1.1\r\nHost: \(location.authority)\r\nUser-Agent: pushseal\r\n"
                + "Accept: */*\r\nAccept-Encoding: identity\r\n\(more)Connection: close\r\n\r\n"
        }
    }
#endif
