// libssl is there on Linux (PushSealHTTPS); on Apple platforms the package links no C library,
// so there, as for HTTP/2, a push service is reached with URLSession instead.
#if canImport(CNGHTTP2)
    internal import PushSealHTTPS
    internal import PushSealURL
    import Glibc

    /// Web Push requests to one origin that does not speak HTTP/2: one kept-alive HTTP/1.1
    /// connection, one request at a time, a new connection whenever the last cannot be reused.
    /// Used from one thread.
    struct HTTP1Origin {
        private let context: TLSContext?
        private let contextFailure: String?
        private let allowsLocalDestinations: Bool
        private let answerTimeout: Duration
        private var connection: HTTPSPostConnection?

        /// The most of a response body kept, as for HTTP/2.
        static let maximumResponseBody = 64 * 1024

        init(caFile: String?, allowsLocalDestinations: Bool, answerTimeout: Duration) {
            do {
                context = try TLSContext(caFile: caFile, protocols: ["http/1.1"])
                contextFailure = nil
            } catch {
                context = nil
                contextFailure = error.detail
            }
            self.allowsLocalDestinations = allowsLocalDestinations
            self.answerTimeout = answerTimeout
        }

        /// POSTs `job` with `headers` and reads the answer, within the answer timeout (connecting
        /// included).
        mutating func post(_ job: WebPushJob, headers: [(name: String, value: String)]) -> WebPushAnswer {
            guard let context else {
                return WebPushAnswer(
                    status: nil, retryAfter: nil, body: [], transportError: contextFailure, permanent: true)
            }
            let wait = TransferWait(deadline: .now + answerTimeout, cancelled: { false })
            // SIGPIPE is held off while the socket is written to, as for HTTP/2.
            let outcome = BrokenPipeGuard.run { () -> Result<HTTPSPostConnection.Response, HTTPSFailure> in
                do throws(HTTPSFailure) {
                    if connection?.isReusable != true {
                        connection = try HTTPSPostConnection(
                            to: job.url, context: context, allowLocal: allowsLocalDestinations, wait: wait)
                    }
                    guard let connection else { throw HTTPSFailure(.unreachable, "no connection") }
                    return .success(
                        try connection.post(
                            target: job.url.target, headers: headers, body: job.body,
                            maximumBody: Self.maximumResponseBody, wait: wait))
                } catch {
                    return .failure(error)
                }
            }
            switch outcome {
            case .success(let response):
                return WebPushAnswer(
                    status: response.status, retryAfter: response.retryAfter, body: response.body,
                    transportError: nil, permanent: false)
            case .failure(let error):
                connection = nil
                return WebPushAnswer(
                    status: nil, retryAfter: nil, body: [], transportError: error.detail,
                    permanent: error.kind == .untrusted || error.kind == .localDestination)
            }
        }

        /// Sleeps until `instant` (a retry's due time), at most a second at a time.
        static func pause(until instant: ContinuousClock.Instant) {
            let (seconds, attoseconds) = (instant - .now).components
            let milliseconds = max(1, min(1_000, Int(seconds) * 1_000 + Int(attoseconds / 1_000_000_000_000_000)))
            usleep(UInt32(milliseconds) * 1_000)
        }
    }
#else
    /// On Apple platforms: no libssl, so no connection can be made (see the top of this file).
    struct HTTP1Origin {
        init(caFile: String?, allowsLocalDestinations: Bool, answerTimeout: Duration) {}

        mutating func post(_ job: WebPushJob, headers: [(name: String, value: String)]) -> WebPushAnswer {
            WebPushAnswer(
                status: nil, retryAfter: nil, body: [],
                transportError: "Web Push over HTTP/1.1 needs libssl, on Linux; on Apple platforms use URLSession",
                permanent: true)
        }

        static func pause(until instant: ContinuousClock.Instant) {}
    }
#endif
