internal import PushSealCore

// libssl is there on Linux (PushSealHTTPS); on Apple platforms the package links no C library,
// so there, as for HTTP/2, a push service is reached with URLSession instead.
#if canImport(CNGHTTP2)
    internal import PushSealHTTPS
    internal import PushSealURL
    import Glibc

    /// Web Push requests to one origin that does not speak HTTP/2: one kept-alive HTTP/1.1
    /// connection (``PushSealHTTPS/HTTP1PostClient``: checked before reuse, a request the service
    /// closed on unanswered sent once more on a fresh one), one request at a time. An answer whose
    /// body passes the cap fails as it does over HTTP/2. Used from one thread.
    struct HTTP1Origin {
        private var client: Result<HTTP1PostClient, HTTPSFailure>
        private let answerTimeout: Duration

        /// The most of a response body read, as for HTTP/2.
        static let maximumResponseBody = 64 * 1024

        init(caFile: String?, allowsLocalDestinations: Bool, answerTimeout: Duration) {
            do throws(HTTPSFailure) {
                let context = try TLSContext(caFile: caFile, protocols: ["http/1.1"])
                client = .success(HTTP1PostClient(context: context, allowsLocalDestinations: allowsLocalDestinations))
            } catch {
                client = .failure(error)
            }
            self.answerTimeout = answerTimeout
        }

        /// POSTs `job` with `headers` and reads the answer, within the answer timeout (connecting
        /// included).
        mutating func post(_ job: WebPushJob, headers: [(name: String, value: String)]) -> WebPushAnswer {
            var origin: HTTP1PostClient
            switch client {
            case .success(let made): origin = made
            case .failure(let error):
                return WebPushAnswer(
                    status: nil, retryAfter: nil, body: [], transportError: TransportError(error), permanent: true)
            }
            let outcome = origin.post(
                to: job.url, headers: headers, body: job.body, maximumBody: Self.maximumResponseBody,
                timeout: answerTimeout)
            client = .success(origin)
            switch outcome {
            case .success(let response) where response.bodyExceeded:
                return WebPushAnswer(
                    status: nil, retryAfter: nil, body: [],
                    transportError: TransportError(
                        .protocolViolation, "the response body was over \(Self.maximumResponseBody) bytes"),
                    permanent: true)
            case .success(let response):
                return WebPushAnswer(
                    status: response.status, retryAfter: response.retryAfter, body: response.body,
                    transportError: nil, permanent: false)
            case .failure(let error):
                return WebPushAnswer(
                    status: nil, retryAfter: nil, body: [], transportError: TransportError(error),
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
                transportError: TransportError(
                    .client, "Web Push over HTTP/1.1 needs libssl, on Linux; on Apple platforms use URLSession"),
                permanent: true)
        }

        static func pause(until instant: ContinuousClock.Instant) {}
    }
#endif
