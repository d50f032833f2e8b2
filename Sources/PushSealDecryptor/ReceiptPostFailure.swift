/// Why a receipt was not taken: the gateway refused it, or it never got there. A receipt that
/// never got there (or met a 429 or 5xx) is worth sending again later; one the gateway refused
/// (404: unknown delivery or capability; 400: a body it does not take) is not.
public struct ReceiptPostFailure: Error, Sendable, CustomStringConvertible {
    /// The gateway's status, when it answered one other than 204.
    public let status: Int?
    /// What went wrong, for a log: never the capability.
    public let detail: String
    /// Whether the same receipt may be taken if sent again later: the gateway did not answer, or
    /// answered 429 or 5xx.
    public var isWorthRetrying: Bool {
        guard let status else { return true }
        return status == 429 || status >= 500
    }

    /// The gateway answered `status`, not 204.
    init(answered status: Int) {
        self.status = status
        detail = "the gateway answered \(status)"
    }

    /// The receipt did not reach the gateway, or no answer came back: `detail` says why.
    init(unsent detail: String) {
        status = nil
        self.detail = detail
    }

    /// `detail`.
    public var description: String { detail }
}
