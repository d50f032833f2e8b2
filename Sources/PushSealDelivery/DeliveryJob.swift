internal import PushSealEncryptor

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

    /// A job for `deviceToken`, checked before anything can reach the wire.
    /// - Throws: ``DeliveryError`` when the token is not hex (it goes into the request path), or
    ///   a header's name is not a lower-case token or its value holds a control character
    ///   (either would let one job write another header). Build headers with `APNsRequest`.
    public init(line: Int, deviceToken: String, headers: [(name: String, value: String)], body: [UInt8]) throws {
        guard Self.isValidDeviceToken(deviceToken) else {
            throw DeliveryError("the device token must be 16 to 200 hexadecimal digits")
        }
        for header in headers {
            guard Self.isHeaderName(header.name) else {
                throw DeliveryError("the header name \"\(header.name.prefix(40))\" is not a lower-case HTTP token")
            }
            guard APNsHeaderRules.isSafeHeaderValue(header.value) else {
                throw DeliveryError("the value of \(header.name) holds a control character")
            }
        }
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

extension DeliveryJob {
    /// True for a header name of lower-case letters, digits and `-` (HTTP/2 requires lower case).
    static func isHeaderName(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy {
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || $0 == UInt8(ascii: "-")
            }
    }
}

/// What the client is given: a job to send, a line already known to be unusable (which still
/// gets its result in input order), or word that nothing is ready yet.
public enum DeliveryItem: Sendable {
    /// Send this.
    case job(DeliveryJob)
    /// Report this line as failed with `reason`, without sending anything.
    case invalid(line: Int, reason: String)
    /// Nothing is ready yet, and more may come (the gateway's next claim is under way): the
    /// client reads its answers for a moment and asks again, rather than leave them unread
    /// while the input makes it wait.
    case notYet
}
