/// The closed set of `reason` label values of `pushseal_gateway_deliveries_total`, so that an
/// operator can alert on them and no peer can make labels without end (gateway-v1.md,
/// "Operations"). The full reason stays in the delivery's record and in the log line.
package enum ReasonLabel {
    /// APNs' documented reasons, and the gateway's own stored ones: their label is themselves.
    package static let known: Set<String> = [
        "BadCollapseId", "BadDeviceToken", "BadExpirationDate", "BadMessageId", "BadPriority", "BadTopic",
        "DeviceTokenNotForTopic", "DuplicateHeaders", "IdleTimeout", "InvalidPushType", "MissingDeviceToken",
        "MissingTopic", "PayloadEmpty", "TopicDisallowed", "BadCertificate", "BadCertificateEnvironment",
        "ExpiredProviderToken", "Forbidden", "InvalidProviderToken", "MissingProviderToken",
        "UnrelatedKeyIdInToken", "BadEnvironmentKeyIdInToken", "BadPath", "MethodNotAllowed", "ExpiredToken",
        "Unregistered", "PayloadTooLarge", "TooManyProviderTokenUpdates", "TooManyRequests", "InternalServerError",
        "ServiceUnavailable", "Shutdown", "InvalidDelivery", "Expired", "DeviceDeleted",
    ]

    /// The label of `reason`: itself when it is ``known``; a push service's `HTTP 413: …` as
    /// `http-413` (`http-4xx` or `http-5xx` for a status outside 400 to 599's named ones); else
    /// what kind of transport failure it was: `timeout`, `tls`, `local-destination`,
    /// `not-allowed`, `network`, or `other`; empty for none.
    package static func of(_ reason: String?) -> String {
        guard let reason, !reason.isEmpty else { return "" }
        if known.contains(reason) { return reason }
        if reason.hasPrefix("HTTP "), let status = Int(reason.dropFirst(5).prefix(3)) {
            return [400, 401, 403, 404, 408, 410, 413, 429, 500, 502, 503, 504].contains(status)
                ? "http-\(status)" : "http-\(status / 100)xx"
        }
        let lowered = reason.lowercased()
        if lowered.contains("timed out") || lowered.contains("timeout") || lowered.contains("no answer")
            || lowered.contains("deadline")
        {
            return "timeout"
        }
        if lowered.contains("tls") || lowered.contains("certificate") || lowered.contains("handshake") {
            return "tls"
        }
        if lowered.contains("local address") { return "local-destination" }
        if lowered.contains("allowed push service") { return "not-allowed" }
        if lowered.contains("connect") || lowered.contains("resolve") || lowered.contains("connection")
            || lowered.contains("network") || lowered.contains("reset") || lowered.contains("closed")
        {
            return "network"
        }
        return "other"
    }
}
