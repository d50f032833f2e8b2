#if canImport(Darwin) || PUSHSEAL_TYPECHECK_APPLE
    import Foundation
    import PushSealCore
    import PushSealURL
    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// The transport of `MediaFetcher` and `ContentFetcher` on Apple platforms: a `URLSession`
    /// data task whose delegate feeds each received block to the same checks as the Linux
    /// transport (a ``TransferSink``), refuses a redirect that is not HTTPS, breaks the media URL
    /// rule (`HTTPSURL`, as the Linux transport parses every redirect) or comes past the last one
    /// allowed, and asks for the bytes as they are (`Accept-Encoding: identity`), so that
    /// `Content-Length` is the object's size.
    ///
    /// Built on Apple platforms only. The Linux CI type-checks it against corelibs Foundation
    /// (`scripts/typecheck-apple.sh`, with `PUSHSEAL_TYPECHECK_APPLE`) but cannot run
    /// it: FoundationNetworking on Linux cannot trust a test server's certificate.
    final class URLSessionTransfer: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        private let sink: any TransferSink
        private let maximumRedirects: Int
        private let allowsLocalDestinations: Bool
        private let condition = NSCondition()
        private var finished = false
        private var failure: MediaFailure?
        private var redirects = 0

        private init(sink: any TransferSink, maximumRedirects: Int, allowsLocalDestinations: Bool) {
            self.sink = sink
            self.maximumRedirects = maximumRedirects
            self.allowsLocalDestinations = allowsLocalDestinations
        }

        /// GETs `address` (or sends it `method` with `body`) with `headers` into `sink`, to its
        /// end, its failure, the deadline or cancellation: the transport's failure, nil when it
        /// finished or the sink stopped it (the sink's own failure says why). Unless
        /// `allowsLocalDestinations`, the URL's host and every redirect's are resolved first, and
        /// refused (`media-local-destination`) when any address they resolve to is local
        /// (``PushSealURL/LocalAddress``).
        static func run(
            _ address: String, method: String = "GET", headers: [(name: String, value: String)] = [],
            body: [UInt8]? = nil, maximumRedirects: Int = 3, into sink: any TransferSink,
            allowsLocalDestinations: Bool, deadline: ContinuousClock.Instant, cancelled: () -> Bool
        ) -> MediaFailure? {
            guard let url = URL(string: address) else {
                return MediaFailure(.integrity, "the URL does not parse")
            }
            if !allowsLocalDestinations, let refusal = DestinationCheck.refusal(forHost: url.host ?? "") {
                return refusal
            }
            var request = URLRequest(url: url)
            request.httpMethod = method
            request.httpBody = body.map { Data($0) }
            request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
            for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.urlCache = nil
            let transfer = URLSessionTransfer(
                sink: sink, maximumRedirects: maximumRedirects, allowsLocalDestinations: allowsLocalDestinations)
            let session = URLSession(configuration: configuration, delegate: transfer, delegateQueue: nil)
            defer { session.invalidateAndCancel() }
            let task = session.dataTask(with: request)
            task.resume()
            transfer.condition.lock()
            defer { transfer.condition.unlock() }
            while !transfer.finished {
                guard ContinuousClock.now < deadline, !cancelled() else {
                    task.cancel()
                    return MediaFailure(.timeout, "the download did not finish in time")
                }
                _ = transfer.condition.wait(until: Date().addingTimeInterval(0.05))
            }
            return transfer.failure
        }

        private func fail(_ failure: MediaFailure) {
            condition.lock()
            if self.failure == nil { self.failure = failure }
            condition.unlock()
        }

        /// What is wrong with a redirect's target under the media URL rule, if anything.
        private static func ruleBroken(by url: URL?) -> String? {
            guard let url else { return "the redirect has no URL" }
            do {
                _ = try HTTPSURL(url.absoluteString)
                return nil
            } catch {
                return error.detail
            }
        }

        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
        ) {
            redirects += 1
            if let refusal = Self.ruleBroken(by: request.url) {
                fail(MediaFailure(.insecureURL, "a redirect breaks the media URL rule: \(refusal)"))
                completionHandler(nil)
                task.cancel()
            } else if redirects > maximumRedirects {
                fail(MediaFailure(.unreachable, "more than \(maximumRedirects) redirects"))
                completionHandler(nil)
                task.cancel()
            } else if !allowsLocalDestinations, let refusal = DestinationCheck.refusal(forHost: request.url?.host ?? "")
            {
                fail(refusal)
                completionHandler(nil)
                task.cancel()
            } else {
                completionHandler(request)
            }
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
        ) {
            let http = response as? HTTPURLResponse
            let length = http?.value(forHTTPHeaderField: "Content-Length").flatMap { Int($0) }
            guard sink.response(status: http?.statusCode ?? 0, length: length) else {
                completionHandler(.cancel)
                return
            }
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            let accepted = data.withUnsafeBytes { sink.body($0) }
            if !accepted { dataTask.cancel() }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            if let error, !sink.hasFailed {
                let timedOut = (error as? URLError)?.code == .timedOut
                fail(MediaFailure(timedOut ? .timeout : .unreachable, error.localizedDescription))
            }
            condition.lock()
            finished = true
            condition.broadcast()
            condition.unlock()
        }
    }
#endif
