/// One push to send: a device token, the APNs headers and the sealed payload.
public struct DeliveryJob: Sendable {
    /// The input line it came from (reported back in its result).
    public let line: Int
    /// The device token, hex.
    public let deviceToken: String
    /// The APNs request headers (`apns-push-type`, `apns-topic`, …), without `authorization`.
    public let headers: [(name: String, value: String)]
    /// The outer payload, compact JSON.
    public let body: [UInt8]

    /// A job for `deviceToken`.
    public init(line: Int, deviceToken: String, headers: [(name: String, value: String)], body: [UInt8]) {
        self.line = line
        self.deviceToken = deviceToken
        self.headers = headers
        self.body = body
    }

    /// True for a plausible device token: hex digits only, 16 to 200 of them, an even count.
    public static func isValidDeviceToken(_ token: String) -> Bool {
        let digits = Array(token.utf8)
        return (16...200).contains(digits.count) && digits.count.isMultiple(of: 2)
            && digits.allSatisfy {
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
                    || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains($0)
            }
    }
}

/// What the client is given: a job to send, or a line already known to be unusable (which still
/// gets its result in input order).
public enum DeliveryItem: Sendable {
    /// Send this.
    case job(DeliveryJob)
    /// Report this line as failed with `reason`, without sending anything.
    case invalid(line: Int, reason: String)
}
