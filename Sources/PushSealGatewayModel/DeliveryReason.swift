package import PushSealCore

/// Why a delivery was not sent, or waits to be tried again: a typed value, stored as its ``text``
/// and read back by ``init(text:)``, so that the label a metric counts when the attempt ends and
/// the one the status page reads from storage are the same (gateway-v1.md, "Operations").
package enum DeliveryReason: Hashable, Sendable {
    /// One of APNs' documented reasons (``apnsReasons``): `BadDeviceToken`, `TooManyRequests`, ….
    case apns(String)
    /// One of the gateway's own.
    case gateway(GatewayReason)
    /// A push service's answer, `HTTP 413: <its words>` (no words when it gave none).
    case pushService(status: Int, words: String?)
    /// No answer came: the transport's kind of failure, and where and why, stored as
    /// `<kind>: <detail>` (`timeout: no answer in 10 seconds`).
    case transport(TransportFailure, detail: String)
    /// A reason of no form above: an APNs reason newer than this version, a job that could not be
    /// made from its row, a reason an older version stored.
    case unknown(String)

    /// APNs' documented reasons (its provider API's table of status codes and reasons).
    package static let apnsReasons: Set<String> = [
        "BadCollapseId", "BadDeviceToken", "BadExpirationDate", "BadMessageId", "BadPriority", "BadTopic",
        "DeviceTokenNotForTopic", "DuplicateHeaders", "IdleTimeout", "InvalidPushType", "MissingDeviceToken",
        "MissingTopic", "PayloadEmpty", "TopicDisallowed", "BadCertificate", "BadCertificateEnvironment",
        "ExpiredProviderToken", "Forbidden", "InvalidProviderToken", "MissingProviderToken",
        "UnrelatedKeyIdInToken", "BadEnvironmentKeyIdInToken", "BadPath", "MethodNotAllowed", "ExpiredToken",
        "Unregistered", "PayloadTooLarge", "TooManyProviderTokenUpdates", "TooManyRequests", "InternalServerError",
        "ServiceUnavailable", "Shutdown",
    ]

    /// The push services' statuses that have a label of their own; another is `http-4xx` or
    /// `http-5xx`.
    package static let labelledStatuses: Set<Int> = [400, 401, 403, 404, 408, 410, 413, 429, 500, 502, 503, 504]

    /// The reason `text` stands for, as ``text`` writes it: a name of APNs' or the gateway's,
    /// `HTTP <status>[: <words>]`, `<transport kind>: <detail>`, else ``unknown(_:)``.
    package init(text: String) {
        if Self.apnsReasons.contains(text) {
            self = .apns(text)
        } else if let own = GatewayReason(rawValue: text) {
            self = .gateway(own)
        } else if let answer = Self.pushServiceAnswer(text) {
            self = answer
        } else if let colon = text.firstIndex(of: ":"), let kind = TransportFailure(rawValue: String(text[..<colon])),
            text[colon...].hasPrefix(": ")
        {
            self = .transport(kind, detail: String(text[colon...].dropFirst(2)))
        } else {
            self = .unknown(text)
        }
    }

    /// How it is stored and shown: by `GET /v1/pushes/{id}`, webhook events and log lines.
    package var text: String {
        switch self {
        case .apns(let name): name
        case .gateway(let own): own.rawValue
        case .pushService(let status, let words?): "HTTP \(status): \(words)"
        case .pushService(let status, nil): "HTTP \(status)"
        case .transport(let kind, let detail): "\(kind.rawValue): \(detail)"
        case .unknown(let text): text
        }
    }

    /// The `reason` label of `pushseal_gateway_deliveries_total` and of the status page: a closed
    /// set, so that an operator can alert on it and no peer can make labels without end. APNs'
    /// and the gateway's names are themselves; a push service's answer is `http-413` (or
    /// `http-4xx`, `http-5xx` for a status with no label of its own); a transport failure is its
    /// kind (`timeout`, `tls`, `network`, `local-destination`, `not-allowed`, `protocol`,
    /// `client`); anything else is `unknown`.
    package var label: String {
        switch self {
        case .apns(let name): name
        case .gateway(let own): own.rawValue
        case .pushService(let status, _):
            Self.labelledStatuses.contains(status) ? "http-\(status)" : "http-\(status / 100)xx"
        case .transport(let kind, _): kind.rawValue
        case .unknown: "unknown"
        }
    }

    /// `HTTP <three digits>`, alone or followed by `: <words>`.
    private static func pushServiceAnswer(_ text: String) -> DeliveryReason? {
        guard text.hasPrefix("HTTP ") else { return nil }
        let rest = text.dropFirst(5)
        let digits = rest.prefix(3)
        guard digits.count == 3, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let status = Int(digits),
            (100...599).contains(status)
        else { return nil }
        let after = rest.dropFirst(3)
        if after.isEmpty { return .pushService(status: status, words: nil) }
        guard after.hasPrefix(": ") else { return nil }
        return .pushService(status: status, words: String(after.dropFirst(2)))
    }
}
