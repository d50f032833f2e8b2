internal import PushSealCore
internal import PushSealGatewayModel
internal import PushSealGatewayStorage

/// The configuration's `webpush` member: how the gateway reaches Web Push subscriptions
/// (gateway-v1.md, "Configuration"). Without it, registering a subscription is 422.
///
/// ```json
/// "webpush": {"vapid_key_file": "vapid.jwk", "subject": "mailto:ops@example.com", "workers": 2,
///             "allowed_hosts": ["fcm.googleapis.com", "updates.push.services.mozilla.com"]}
/// ```
public struct WebPushSettings: Sendable {
    /// The application server's P-256 key (RFC 8292), a private JWK or PKCS#8 PEM file, 0600.
    public let vapidKeyFile: String
    /// The contact push services may use: a `mailto:` address or an `https:` URL.
    public let subject: String
    /// Web Push delivery workers (1 to 64; 2), apart from the APNs ones.
    public let workers: Int
    /// When given, the only push-service hosts a subscription may name.
    public let allowedHosts: Set<String>?
    /// Whether endpoints may reach loopback and local-network addresses (tests; a push service on
    /// the operator's own network). False by default.
    public let allowsLocalDestinations: Bool
    /// Certificates to trust for push services instead of the system's (a mock, in tests).
    public let caFile: String?
    /// How a subscription's content is made: its shape, and the URL a notification opens when
    /// the push names none.
    let content: SubscriptionContent
    /// What the operator should change, though the gateway serves as it is: a configuration of
    /// 1.3 with neither `content` nor `navigate` keeps 1.3's content until `navigate` is set.
    let warning: ConfigurationWarning?

    /// Reads the `webpush` member `object` (at `path`); relative files go through `resolve`.
    /// - Throws: ``GatewayError`` naming the member at fault.
    init(_ object: JSONObject, at path: JSONPath, resolve: (String) -> String) throws(GatewayError) {
        try GatewayConfiguration.refuseUnknown(
            object,
            [
                "vapid_key_file", "subject", "workers", "allowed_hosts", "allow_local_destinations", "ca_file",
                "content",
                "navigate",
            ], at: path)
        guard let key = object["vapid_key_file"]?.stringValue, !key.isEmpty else {
            throw GatewayConfiguration.invalid(path.member("vapid_key_file"), "must be a non-empty string")
        }
        vapidKeyFile = resolve(key)
        guard let subject = object["subject"]?.stringValue, !subject.isEmpty else {
            throw GatewayConfiguration.invalid(path.member("subject"), "must be a mailto: address or an https: URL")
        }
        self.subject = subject
        workers = try GatewayConfiguration.integer(object, "workers", in: 1...64, at: path) ?? 2
        if object["allowed_hosts"] == nil {
            allowedHosts = nil
        } else {
            let hosts = try GatewayConfiguration.strings(object, "allowed_hosts", of: "host names", at: path)
            for (index, host) in hosts.enumerated() where !Self.isHostPattern(host) {
                throw GatewayConfiguration.invalid(
                    path.member("allowed_hosts").element(index),
                    "must be a host name, or *. and a domain of two labels or more (*.notify.windows.com)")
            }
            allowedHosts = Set(hosts.map { $0.lowercased() })
        }
        allowsLocalDestinations = try GatewayConfiguration.flag(object, "allow_local_destinations", at: path)
        caFile = try GatewayConfiguration.file(object, "ca_file", at: path, resolve: resolve)
        (content, warning) = try Self.content(object, at: path)
    }

    /// The `content` and `navigate` members: the declarative form (the default) needs a URL to
    /// open, and 1.3's form is kept for service workers written for it. A configuration that names
    /// neither (1.3's, unchanged by an upgrade) keeps 1.3's form, with a warning, so that a minor
    /// upgrade never stops a working gateway; `content: "declarative"` without `navigate` is
    /// refused.
    private static func content(_ object: JSONObject, at path: JSONPath) throws(GatewayError) -> (
        SubscriptionContent, ConfigurationWarning?
    ) {
        let forms = SubscriptionContent.Form.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " or ")
        var form = SubscriptionContent.Form.declarative
        if let value = object["content"] {
            guard let name = value.stringValue, let named = SubscriptionContent.Form(rawValue: name) else {
                throw GatewayConfiguration.invalid(path.member("content"), "must be \(forms)")
            }
            form = named
        }
        var navigate: String?
        if let value = object["navigate"] {
            guard let url = value.stringValue, WebPushOptions.isWebURL(url) else {
                throw GatewayConfiguration.invalid(
                    path.member("navigate"),
                    "must be an https URL of at most \(WebPushOptions.maximumURLByteCount) bytes")
            }
            navigate = url
        }
        if form == .declarative && navigate == nil {
            guard object["content"] == nil else {
                throw GatewayConfiguration.invalid(
                    path.member("navigate"),
                    "is missing: the https URL a notification opens when a push names none (gateway-v1.md, "
                        + "\"Web Push\"), which Declarative Web Push requires")
            }
            let warning = ConfigurationWarning(
                path: path.member("navigate"),
                message:
                    "is missing: subscriptions get 1.3's content until it is set. Set it to the https URL a "
                    + "notification opens when a push names none, with a service worker that reads the declarative "
                    + "form (web.md), or set \"content\": \"service-worker-1.3\" to keep 1.3's (gateway-v1.md, "
                    + "\"Web Push\")")
            return (SubscriptionContent(form: .serviceWorker13, navigate: nil), warning)
        }
        return (SubscriptionContent(form: form, navigate: navigate), nil)
    }

    /// A host name (letters, digits, `-` and `.`), or `*.` and a domain of two labels or more,
    /// which allows every host below that domain.
    static func isHostPattern(_ text: String) -> Bool {
        let name = text.hasPrefix("*.") ? text.dropFirst(2) : text[...]
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        let named = labels.allSatisfy { label in
            !label.isEmpty
                && label.utf8.allSatisfy {
                    (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
                        || $0 == UInt8(ascii: "-")
                }
        }
        return named && (!text.hasPrefix("*.") || labels.count >= 2)
    }
}
