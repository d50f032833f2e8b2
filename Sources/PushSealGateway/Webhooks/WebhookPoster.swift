internal import PushSealGatewayModel

#if canImport(PushSealHTTPS)
    internal import PushSealHTTPS
    internal import PushSealURL

    /// POSTs signed messages to one webhook endpoint over a kept-alive HTTPS connection (HTTP/1.1,
    /// ``PushSealHTTPS/HTTP1PostClient``: an idle connection the receiver closed is not used, and a
    /// request the receiver closed on unanswered goes once more on a fresh one), one at a time,
    /// each within ``answerTimeout``. The URL is the operator's, yet treated as untrusted: every
    /// address its host resolves to is checked as the connection is made, and local ones are
    /// refused unless the endpoint allows them. Used from one thread.
    struct WebhookPoster {
        /// How long one request may take, connecting included.
        static let answerTimeout = Duration.seconds(10)
        /// The most of an answer's body read (and dropped): past it, reading stops, the connection
        /// is closed, and the answer's status still counts.
        static let maximumAnswerBody = 16 * 1024

        private let url: HTTPSURL?
        private let setupFailure: String?
        private let signer: WebhookSigner
        private var client: HTTP1PostClient?

        /// A poster to `settings`' URL, signing with `signer`.
        init(_ settings: WebhookSettings, signer: WebhookSigner) {
            self.signer = signer
            do throws(HTTPSFailure) {
                let context = try TLSContext(caFile: settings.caFile, protocols: ["http/1.1"])
                client = HTTP1PostClient(context: context, allowsLocalDestinations: settings.allowsLocalDestinations)
                setupFailure = nil
            } catch {
                client = nil
                setupFailure = error.detail
            }
            url = try? HTTPSURL(settings.url)
        }

        /// Why no message could go to `settings`' endpoint, found before any is sent (its
        /// certificates to trust cannot be loaded), or nil.
        static func setupFailure(_ settings: WebhookSettings) -> String? {
            do throws(HTTPSFailure) {
                _ = try TLSContext(caFile: settings.caFile, protocols: ["http/1.1"])
                return nil
            } catch {
                return error.detail
            }
        }

        /// Sends `body` as the message `id`, signed at the current time; how it ended.
        mutating func post(id: String, body: [UInt8]) -> WebhookAttempt {
            guard let url, var client else {
                return .failed(reason: setupFailure ?? "the URL is not usable", retryAfterSeconds: nil)
            }
            let timestamp = GatewayClock.milliseconds() / 1_000
            let headers = [
                ("Content-Type", "application/json"), ("webhook-id", id), ("webhook-timestamp", "\(timestamp)"),
                ("webhook-signature", signer.signature(id: id, timestamp: timestamp, body: body)),
            ]
            let outcome = client.post(
                to: url, headers: headers, body: body, maximumBody: Self.maximumAnswerBody, timeout: Self.answerTimeout)
            self.client = client
            switch outcome {
            case .success(let response) where (200..<300).contains(response.status):
                return .delivered
            case .success(let response):
                return .failed(
                    reason: "HTTP \(response.status)",
                    retryAfterSeconds: response.retryAfter.flatMap { Int($0.trimmingPrefix(" ")) })
            case .failure(let error):
                return .failed(reason: error.detail, retryAfterSeconds: nil)
            }
        }
    }
#else
    /// On Apple platforms: no libssl, so no webhook can be sent (the gateway runs on Linux).
    struct WebhookPoster {
        init(_ settings: WebhookSettings, signer: WebhookSigner) {}

        static func setupFailure(_ settings: WebhookSettings) -> String? { nil }

        mutating func post(id: String, body: [UInt8]) -> WebhookAttempt {
            .failed(reason: "webhooks need libssl, on Linux", retryAfterSeconds: nil)
        }
    }
#endif
