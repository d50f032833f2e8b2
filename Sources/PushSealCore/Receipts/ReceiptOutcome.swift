/// What a device reports of a delivery (envelope-v1.md, "Receipts"): that it showed the opened
/// content, or that it showed the placeholder, and why.
public enum ReceiptOutcome: Sendable, Hashable, CustomStringConvertible {
    /// The opened content was shown (with its media or without).
    case displayed
    /// The placeholder (or a store policy's neutral text) was shown instead, for this reason.
    case degraded(PushSealError.Code)

    /// The reasons a degraded receipt may give: the reasons of envelope-v1.md a device can meet,
    /// a closed set.
    public static let degradeReasons: [PushSealError.Code] = [
        .malformedEnvelope, .unsupportedVersion, .unsupportedSuite, .unknownKey, .untrustedSender,
        .authenticationRequired, .decryptionFailed, .malformedContent, .keyStoreUnavailable, .keyStoreLocked,
        .timeout, .notSealed, .fetchFailed, .fetchIntegrity, .fetchExpired,
    ]

    /// The degraded outcome for `reason`, or nil when it is not one of ``degradeReasons``.
    public static func degraded(reason: String) -> ReceiptOutcome? {
        degradeReasons.first { $0.rawValue.isExactly(reason) }.map(ReceiptOutcome.degraded)
    }

    /// `displayed` or `degraded`.
    public var name: String {
        switch self {
        case .displayed: "displayed"
        case .degraded: "degraded"
        }
    }

    /// The reason of a degraded outcome; nil for `displayed`.
    public var reason: PushSealError.Code? {
        if case .degraded(let reason) = self { reason } else { nil }
    }

    /// The receipt's body: `{"outcome": "displayed"}` or `{"outcome": "degraded", "reason": R}`.
    public var json: JSONObject {
        var object = JSONObject([("outcome", .string(name))])
        if let reason { object["reason"] = .string(reason.rawValue) }
        return object
    }

    /// The outcome, and its reason when degraded.
    public var description: String { reason.map { "degraded (\($0))" } ?? name }
}
