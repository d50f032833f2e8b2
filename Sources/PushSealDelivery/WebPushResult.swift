public import PushSealCore

/// How one ``WebPushJob`` ended (RFC 8030 §5 and §8, as webpush-v1.md's "Delivery" reads them).
public struct WebPushResult: Sendable, Equatable {
    /// The outcome.
    public enum Status: String, Sendable {
        /// 201 (any 2xx): the push service accepted the message.
        case sent
        /// 404 or 410: the subscription no longer exists; stop sending to it.
        case gone
        /// Refused for good (400, 403, 413, another 4xx), or a transient failure that outlived
        /// the client's retries (``transient`` is then true).
        case failed
    }

    /// The job's line.
    public let line: Int
    /// The outcome.
    public let status: Status
    /// The push service's HTTP status, when it answered.
    public let httpStatus: Int?
    /// Why it was not sent: the status and what the service said (bounded), or the transport error.
    public let reason: String?
    /// Requests made.
    public let attempts: Int
    /// The seconds a `Retry-After` asked for, when the last answer had one.
    public let retryAfterSeconds: Int?
    /// True when the failure may heal later (429, 5xx, a lost connection): a durable outbox
    /// tries again then.
    public let transient: Bool
    /// For a job that got no answer: what kind of transport failure ``reason`` tells.
    public var transportFailure: TransportFailure?
}
