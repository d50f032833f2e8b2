internal import PushSealCore

#if canImport(CNGHTTP2)
    /// One request on an ``HTTP2Session``: its body as nghttp2 reads it out, and its response as
    /// nghttp2 reports it. The session's table of open streams keeps it alive until nghttp2 closes
    /// the stream, so nghttp2 may hold an unretained pointer to it.
    final class HTTP2Stream {
        /// The caller's id for the request, reported with its response.
        let requestID: Int
        /// The request body.
        let body: [UInt8]
        /// Whether its HEADERS went out: nghttp2 holds a request back while the server's stream
        /// limit is reached.
        var started = false
        /// How much of ``body`` nghttp2 has taken.
        var bodyOffset = 0
        /// When the request gives up waiting for its response.
        let deadline: ContinuousClock.Instant
        /// The response's `:status`, once its headers arrived.
        var status: Int?
        /// The response's headers that APNs documents, names in lower case.
        var headers: [String: String] = [:]
        /// The bytes of every header field received so far, informational blocks included.
        var headerBytes = 0
        /// The response body so far.
        var responseBody: [UInt8] = []
        /// Set when the stream was ended on purpose (an oversized answer, no answer in time): the
        /// response it reports, whatever the stream's close says.
        var failure: HTTP2Response?

        init(requestID: Int, body: [UInt8], deadline: ContinuousClock.Instant) {
            self.requestID = requestID
            self.body = body
            self.deadline = deadline
        }

        /// What the stream amounts to once nghttp2 closed it with `errorCode`.
        func response(closedWith errorCode: UInt32) -> HTTP2Response {
            if let failure { return failure }
            if errorCode == 0, let status {
                return HTTP2Response(status: status, headers: headers, body: responseBody)
            }
            if errorCode == HTTP2Session.refusedStream {
                return HTTP2Response(
                    transportError: TransportError(.network, "the server refused the stream before processing it"),
                    unprocessed: true)
            }
            guard errorCode != 0 else {
                return HTTP2Response(
                    transportError: TransportError(.protocolViolation, "the stream ended without a response"))
            }
            return HTTP2Response(
                transportError: TransportError(.network, "the stream was reset (HTTP/2 error \(errorCode))"))
        }
    }
#endif
