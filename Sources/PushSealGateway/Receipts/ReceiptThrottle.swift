/// The rate of receipts each client address may send (`http.receipts_per_second` and
/// `receipts_burst`; gateway-v1.md, "Receipts"): receipts need no access token, so what bounds
/// their cost to the store is the address they come from. A batch counts each of its receipts.
/// Behind a trusted proxy the client is the one its `X-Forwarded-For` names.
struct ReceiptThrottle: Sendable {
    private let limiter: RateLimiter
    private let proxies: TrustedProxies

    /// A throttle with `limits`' rate and proxies, counting each refusal in `metrics`.
    init(_ limits: HTTPLimits, metrics: Metrics) {
        limiter = RateLimiter(.receipts(perSecond: limits.receiptsPerSecond, burst: limits.receiptsBurst)) {
            metrics.rateLimited($0)
        }
        proxies = limits.trustedProxies
    }

    /// Spends `count` receipts of the client `request` comes from, or throws 429 `rate-limited`
    /// with the seconds until it could. A request whose client is unknown (no peer address) is
    /// counted with every other such request.
    func spend(_ count: Int, for request: HTTPRequest) throws(APIError) {
        let client = proxies.client(peer: request.peer, forwardedFor: request.header("x-forwarded-for"))
        try limiter.spend(count, of: .receipts, token: client?.key ?? "unknown")
    }
}
