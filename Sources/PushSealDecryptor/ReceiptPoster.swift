public import PushSealCore

#if os(Linux)
    internal import PushSealHTTPS
    internal import PushSealURL
#endif

/// Posts a receipt (envelope-v1.md, "Receipts"): what a device showed of a delivery, to the URL of
/// the delivery's ticket, with the ticket's capability as a bearer token and
/// `{"outcome": "displayed"}` or `{"outcome": "degraded", "reason": R}` as the body, under the
/// rules of fetched content (HTTPS only, TLS verified, no redirect followed, no local destination
/// unless allowed). The gateway answers 204 for a receipt it took, and for a repeat.
///
/// The transport is `HTTPSPostConnection` on Linux and `URLSession` on Apple platforms.
public struct ReceiptPoster: Sendable {
    /// Posts `body` with `headers` to `url` until `deadline`: the answer's status, or why there was
    /// none.
    package typealias Transport =
        @Sendable (
            _ url: String, _ headers: [(name: String, value: String)], _ body: [UInt8],
            _ deadline: ContinuousClock.Instant
        ) -> Result<Int, ReceiptPostFailure>

    /// Certificates to trust instead of the system's (a test server's).
    public let caFile: String?
    /// Whether the receipt may go to loopback, private, link-local and unique-local addresses: off
    /// by default, as for fetched content (a gateway on the support engineer's own network, a test).
    public let allowsLocalDestinations: Bool
    private let transport: Transport

    /// A poster trusting `caFile`'s certificates when given, else the system's.
    public init(caFile: String? = nil, allowsLocalDestinations: Bool = false) {
        self.caFile = caFile
        self.allowsLocalDestinations = allowsLocalDestinations
        transport = Self.https(caFile: caFile, allowsLocalDestinations: allowsLocalDestinations)
    }

    /// A poster whose requests go to `transport` (a test's).
    package init(transport: @escaping Transport) {
        caFile = nil
        allowsLocalDestinations = false
        self.transport = transport
    }

    /// Posts `outcome` with `ticket`, giving up at `deadline`.
    /// - Throws: ``ReceiptPostFailure`` when the gateway did not answer 204.
    public func post(_ outcome: ReceiptOutcome, with ticket: ReceiptTicket, deadline: ContinuousClock.Instant)
        throws(ReceiptPostFailure)
    {
        let headers = [("Authorization", ticket.authorization), ("Content-Type", "application/json")]
        let status = try transport(ticket.url, headers, JSONWriter.bytes(.object(outcome.json)), deadline).get()
        guard status == 204 else { throw ReceiptPostFailure(answered: status) }
    }

    /// Posts `receipts` (at most 100, each its outcome and its ticket, all of one gateway) as one
    /// batch to `url` (their tickets' `batchURL`), giving up at
    /// `deadline`. The gateway answers 200 with each receipt's status; one it refused (404) is
    /// refused for good, so the answer's body is not needed.
    /// - Throws: ``ReceiptPostFailure`` when the gateway did not answer 200.
    public func postBatch(
        _ receipts: [(outcome: ReceiptOutcome, ticket: ReceiptTicket)], to url: String,
        deadline: ContinuousClock.Instant
    ) throws(ReceiptPostFailure) {
        let body = JSONObject([("receipts", .array(receipts.map { .object($0.ticket.batchItem($0.outcome)) }))])
        let headers = [("Content-Type", "application/json")]
        let status = try transport(url, headers, JSONWriter.bytes(.object(body)), deadline).get()
        guard status == 200 else { throw ReceiptPostFailure(answered: status) }
    }

    /// The most of an answer's body read: the gateway's answers to receipts are short.
    static let maximumAnswer = 4_096

    #if os(Linux)
        /// One POST on a connection of its own, no redirect followed.
        private static func https(caFile: String?, allowsLocalDestinations: Bool) -> Transport {
            { address, headers, body, deadline in
                let url: HTTPSURL
                do {
                    url = try HTTPSURL(address)
                } catch {
                    return .failure(ReceiptPostFailure(unsent: "the receipt URL is refused: \(error)"))
                }
                let wait = TransferWait(deadline: deadline, cancelled: { false })
                let answer = BrokenPipeGuard.run { () -> Result<Int, HTTPSFailure> in
                    do throws(HTTPSFailure) {
                        let context = try TLSContext(caFile: caFile, protocols: ["http/1.1"])
                        let connection = try HTTPSPostConnection(
                            to: url, context: context, allowLocal: allowsLocalDestinations, wait: wait)
                        return .success(
                            try connection.post(
                                target: url.target, headers: headers, body: body, maximumBody: maximumAnswer, wait: wait
                            ).status)
                    } catch {
                        return .failure(error)
                    }
                }
                return answer.mapError { failure in
                    ReceiptPostFailure(
                        unsent: failure.kind == .timeout ? "the gateway did not answer in time" : failure.detail)
                }
            }
        }
    #elseif canImport(Darwin)
        /// One POST with `URLSession`, no redirect followed.
        private static func https(caFile: String?, allowsLocalDestinations: Bool) -> Transport {
            { address, headers, body, deadline in
                let answer = ReceiptAnswer()
                if let failure = URLSessionTransfer.run(
                    address, method: "POST", headers: headers, body: body, maximumRedirects: 0, into: answer,
                    allowsLocalDestinations: allowsLocalDestinations, deadline: deadline, cancelled: { false })
                {
                    return .failure(ReceiptPostFailure(unsent: failure.detail))
                }
                return answer.status.map { .success($0) } ?? .failure(ReceiptPostFailure(unsent: "no answer"))
            }
        }
    #else
        private static func https(caFile: String?, allowsLocalDestinations: Bool) -> Transport {
            { _, _, _, _ in
                .failure(ReceiptPostFailure(unsent: "no HTTPS transport on this platform"))
            }
        }
    #endif
}
