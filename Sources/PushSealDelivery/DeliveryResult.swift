public import PushSealCore

/// How one job ended: exactly one per job.
public struct DeliveryResult: Sendable, Equatable {
    /// The three outcomes.
    public enum Status: String, Sendable {
        /// APNs accepted the push (200).
        case sent
        /// The push was refused for good, or every retry failed.
        case failed
        /// The device token is no longer valid (410): prune it, unless the device registered
        /// again after ``DeliveryResult/timestamp``.
        case unregistered
    }

    /// The input line.
    public let line: Int
    /// The outcome.
    public let status: Status
    /// APNs' id for the push, when it answered.
    public let apnsID: String?
    /// APNs' reason (`BadDeviceToken`, …) or the transport error, when not sent.
    public let reason: String?
    /// Requests made for the job (0 for an invalid line).
    public let attempts: Int
    /// For `unregistered`: when APNs last knew the token was valid, milliseconds since the epoch.
    public let timestamp: Int?
    /// For `failed`: the cause was transient (429, 5xx, a transport error) and outlasted the
    /// retries; a later try may succeed (the gateway's outbox schedules one).
    public var transient = false
    /// For a job that got no answer from APNs: what kind of transport failure ``reason`` tells.
    public var transportFailure: TransportFailure?

    /// A result with these members (a transport of another kind, a test).
    public init(
        line: Int, status: Status, apnsID: String?, reason: String?, attempts: Int, timestamp: Int?,
        transient: Bool = false
    ) {
        self.line = line
        self.status = status
        self.apnsID = apnsID
        self.reason = reason
        self.attempts = attempts
        self.timestamp = timestamp
        self.transient = transient
    }

    /// The output line: `{"line", "status", "apns-id", "reason", "attempts", "timestamp"}`,
    /// members that do not apply left out.
    public var json: JSONObject {
        var object = JSONObject()
        object["line"] = .number(JSONNumber(line))
        object["status"] = .string(status.rawValue)
        if let apnsID { object["apns-id"] = .string(apnsID) }
        if let reason { object["reason"] = .string(reason) }
        object["attempts"] = .number(JSONNumber(attempts))
        if let timestamp { object["timestamp"] = .number(JSONNumber(timestamp)) }
        return object
    }
}
