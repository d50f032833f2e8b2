#if canImport(CLibSSL)
    package import PushSealURL

    /// POSTs to one origin over a kept-alive HTTP/1.1 connection (``HTTPSPostConnection``), as
    /// ordinary receivers expect of a client: an idle connection is checked before it is used
    /// again (the server may have closed it meanwhile, as Python's `http.server` does after every
    /// answer and as Node's does after five idle seconds), and a request whose reused connection
    /// closed before any byte of the answer is sent once more on a fresh connection, without
    /// counting as a failure. A server that closed an idle connection never read the request on
    /// it; one that read it and closed without answering would get it twice, which receivers of
    /// at-least-once deliveries tell apart by the message's id. Used from one thread.
    package struct HTTP1PostClient {
        private let context: TLSContext
        private let allowsLocalDestinations: Bool
        private var connection: HTTPSPostConnection?

        /// A client whose connections use `context` (ALPN `http/1.1`), reaching local addresses
        /// only when `allowsLocalDestinations`.
        package init(context: TLSContext, allowsLocalDestinations: Bool) {
            self.context = context
            self.allowsLocalDestinations = allowsLocalDestinations
        }

        /// POSTs `body` with `headers` to `url` (on the origin this client serves), and reads the
        /// answer, its body up to `maximumBody`, all within `timeout` (connecting included). SIGPIPE
        /// is held off while the sockets are written to.
        package mutating func post(
            to url: HTTPSURL, headers: [(name: String, value: String)], body: [UInt8], maximumBody: Int,
            timeout: Duration
        ) -> Result<HTTPSPostConnection.Response, HTTPSFailure> {
            let wait = TransferWait(deadline: .now + timeout, cancelled: { false })
            let outcome = BrokenPipeGuard.run { () -> Result<HTTPSPostConnection.Response, HTTPSFailure> in
                func exchange(on used: HTTPSPostConnection) throws(HTTPSFailure) -> HTTPSPostConnection.Response {
                    try used.post(
                        target: url.target, headers: headers, body: body, maximumBody: maximumBody, wait: wait)
                }
                do throws(HTTPSFailure) {
                    if let kept = connection, kept.isReadyForReuse {
                        do throws(HTTPSFailure) {
                            return .success(try exchange(on: kept))
                        } catch {
                            guard kept.closedBeforeAnswering else { throw error }
                        }
                    }
                    return .success(try exchange(on: try connect(to: url, wait: wait)))
                } catch {
                    return .failure(error)
                }
            }
            if case .failure = outcome { connection = nil }
            return outcome
        }

        /// A new connection to `url`'s origin, kept for the next request.
        private mutating func connect(to url: HTTPSURL, wait: TransferWait) throws(HTTPSFailure) -> HTTPSPostConnection
        {
            let made = try HTTPSPostConnection(
                to: url, context: context, allowLocal: allowsLocalDestinations, wait: wait)
            connection = made
            return made
        }
    }
#endif
