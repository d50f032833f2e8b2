internal import PushSealURL

/// One sealed Web Push message to send: where, and the RFC 8030 headers that go with it.
public struct WebPushJob: Sendable {
    /// The most a `TTL` may be: 28 days, the longest push services keep a message.
    public static let maximumTTL = 28 * 24 * 3600

    /// The job's line in the input, echoed in its result.
    public let line: Int
    /// The subscription's endpoint.
    public let endpoint: String
    /// The endpoint, parsed.
    let url: HTTPSURL
    /// The `aes128gcm` message (webpush-v1.md).
    public let body: [UInt8]
    /// Seconds the push service may keep the message for an offline receiver (`TTL`).
    public let ttl: Int
    /// `Urgency`, when not the default `normal`.
    public let urgency: WebPushUrgency?
    /// `Topic`: a newer message with the same topic replaces an undelivered older one.
    public let topic: String?

    /// A job, checked: an https endpoint under PushSealURL's rule, a body of at most 4,096 bytes,
    /// a TTL of 0 to 28 days, and a topic of at most 32 base64url characters (RFC 8030 §5.4).
    /// - Throws: ``DeliveryError`` naming what is wrong.
    public init(
        line: Int, endpoint: String, body: [UInt8], ttl: Int, urgency: WebPushUrgency? = nil, topic: String? = nil
    ) throws {
        do {
            url = try HTTPSURL(endpoint)
        } catch {
            throw DeliveryError("the endpoint is not a usable https URL: \(error.detail)")
        }
        guard body.count <= 4096 else {
            throw DeliveryError("the message holds \(body.count) bytes; push services take at most 4096")
        }
        guard (0...Self.maximumTTL).contains(ttl) else {
            throw DeliveryError("the TTL must be 0 to \(Self.maximumTTL) seconds, not \(ttl)")
        }
        if let topic, !Self.isValidTopic(topic) {
            throw DeliveryError("a topic is 1 to 32 characters of the base64url alphabet (RFC 8030 §5.4)")
        }
        self.line = line
        self.endpoint = endpoint
        self.body = body
        self.ttl = ttl
        self.urgency = urgency
        self.topic = topic
    }

    /// True for a topic RFC 8030 allows: 1 to 32 characters from `A–Z a–z 0–9 - _`.
    public static func isValidTopic(_ topic: String) -> Bool {
        (1...32).contains(topic.utf8.count)
            && topic.utf8.allSatisfy { byte in
                (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
    }

    /// `https://host[:port]`: the origin a connection and a VAPID token serve.
    public var origin: String { "https://\(url.authority)" }
}

/// RFC 8030 §5.3's `Urgency`: how soon a device on battery should be woken for the message.
public enum WebPushUrgency: String, Sendable, CaseIterable {
    /// Only on power and Wi-Fi.
    case veryLow = "very-low"
    /// On power or Wi-Fi.
    case low
    /// On neither power nor Wi-Fi (the default).
    case normal
    /// Even on low battery.
    case high
}
