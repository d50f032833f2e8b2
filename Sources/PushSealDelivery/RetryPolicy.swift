/// What to do after each APNs answer, following Apple's provider API documentation.
///
/// 200 is sent. 400 and 413 fail for good (the request itself is wrong). 403
/// `ExpiredProviderToken` replaces the token once and retries; any other 403 fails. 410 is
/// `unregistered`. 429 backs off exponentially with jitter. 500, 503 and transport errors
/// (a dropped connection, a timeout) retry after 1 to 5 seconds, at most ``serverRetries`` times;
/// a permanent transport failure (a certificate that does not verify, a server that does not
/// speak HTTP/2) fails at once.
public struct RetryPolicy: Sendable {
    /// Retries after 500, 503 or a transport error.
    public var serverRetries = 3
    /// The range of the delay before such a retry, in seconds.
    public var serverRetryDelay: ClosedRange<Double> = 1...5
    /// Retries after 429.
    public var throttleRetries = 6
    /// The first 429 back-off, doubled at each retry, in seconds.
    public var throttleBaseDelay = 1.0
    /// The longest 429 back-off, in seconds.
    public var throttleMaximumDelay = 60.0

    /// Apple's behaviour as documented.
    public init() {}

    /// The decision for one answer.
    enum Decision: Equatable {
        case sent
        case failed(String)
        /// A transient cause (429, 5xx, a transport error) outlasted every retry: another try
        /// later may succeed.
        case gaveUp(String)
        case unregistered(timestamp: Int?, reason: String)
        case retry(afterSeconds: Double, reason: String)
        case replaceTokenAndRetry
    }

    /// Decides after attempt number `attempt` (1 for the first) of a job.
    /// - Parameters:
    ///   - status: the HTTP status, or nil for a transport error.
    ///   - reason: APNs' `reason`, or the transport error's description.
    ///   - tokenReplaced: whether this job already had its token replaced once.
    ///   - permanent: for a transport error, whether retrying cannot help.
    func decide(
        status: Int?, reason: String?, timestamp: Int?, attempt: Int, tokenReplaced: Bool, permanent: Bool = false,
        random: (ClosedRange<Double>) -> Double
    ) -> Decision {
        let reason = reason ?? status.map { "HTTP \($0)" } ?? "transport error"
        if status == nil && permanent { return .failed(reason) }
        switch status {
        case 200?:
            return .sent
        case 403? where reason == "ExpiredProviderToken" && !tokenReplaced:
            return .replaceTokenAndRetry
        case 410?:
            return .unregistered(timestamp: timestamp, reason: reason)
        case 429?:
            guard attempt <= throttleRetries else { return .gaveUp(reason) }
            let delay = min(throttleMaximumDelay, throttleBaseDelay * Double(1 << min(attempt - 1, 30)))
            return .retry(afterSeconds: random(delay / 2...delay), reason: reason)
        case nil, 500?, 502?, 503?, 504?:
            guard attempt <= serverRetries else { return .gaveUp(reason) }
            return .retry(afterSeconds: random(serverRetryDelay), reason: reason)
        default:
            return .failed(reason)
        }
    }
}
