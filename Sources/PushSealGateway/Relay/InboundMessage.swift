internal import PushSealCore
internal import PushSealDelivery

/// A message a Web Push sender posted to an endpoint (RFC 8030 §5), checked as a push service
/// checks it before storing anything: `Content-Encoding: aes128gcm` with a well-formed header, or
/// the legacy `aesgcm` with its `Encryption` and `Crypto-Key` headers (``AESGCMHeaders``);
/// `TTL`, `Urgency` and `Topic` as RFC 8030 defines them; and a body of at most 4,096 bytes
/// (RFC 8030 §7.2; gateway-v1.md, "Web Push in").
struct InboundMessage: Sendable {
    /// The message's coding.
    let coding: WebPushCoding
    /// What the relay forwards: the `aes128gcm` body as posted, or the `aesgcm` message's frame
    /// (its headers' salt and key, then the body as posted).
    let forwarded: [UInt8]
    /// The body's length, as posted.
    let bodyByteCount: Int
    /// How long the push service may keep it, in seconds (RFC 8030 §5.2).
    let ttl: Int
    /// `very-low`, `low`, `normal` or `high` (RFC 8030 §5.3); `normal` when absent.
    let urgency: String
    /// The topic that replaces an undelivered message with the same one (RFC 8030 §5.4).
    let topic: String?

    /// The longest TTL kept: 28 days, as the largest push services keep messages.
    static let maximumTTL = 2_419_200

    /// Reads and checks `request`, whose body may be at most `maximumBody` bytes.
    /// - Throws: ``APIError``: 400 for a header that is missing or wrong (the content coding, the
    ///   TTL, the urgency, the topic, the message's own header), 413 for a body too long.
    init(_ request: HTTPRequest, maximumBody: Int) throws(APIError) {
        guard !request.body.isEmpty || request.bodyTooLarge else {
            throw .webPush(
                400,
                "a message with no content is not relayed: an iPhone shows only what its extension opens (gateway-v1.md, \"Web Push in\")"
            )
        }
        switch request.header("content-encoding")?.lowercased() {
        case "aes128gcm"?: coding = .aes128gcm
        case "aesgcm"?: coding = .aesgcm
        case let other?: throw .webPush(400, "Content-Encoding \(APIError.quoted(other)) is not aes128gcm or aesgcm")
        case nil: throw .webPush(400, "Content-Encoding is missing: a Web Push message is aes128gcm (RFC 8291)")
        }
        guard let ttl = request.header("ttl").flatMap(Self.ttl) else {
            throw .webPush(400, "TTL must be a number of seconds (RFC 8030 §5.2)")
        }
        self.ttl = ttl
        switch request.header("urgency")?.lowercased() {
        case nil: urgency = "normal"
        case let value? where ["very-low", "low", "normal", "high"].contains(value): urgency = value
        case let value?:
            throw .webPush(
                400, "Urgency \(APIError.quoted(value)) is not very-low, low, normal or high (RFC 8030 §5.3)")
        }
        if let topic = request.header("topic") {
            guard WebPushJob.isValidTopic(topic) else {
                throw .webPush(400, "Topic must be 1 to 32 base64url characters (RFC 8030 §5.4)")
            }
            self.topic = topic
        } else {
            topic = nil
        }
        guard !request.bodyTooLarge, request.body.count <= maximumBody else {
            throw .webPush(
                413, "the message is over \(maximumBody) bytes, the most a push service must take (RFC 8030 §7.2)")
        }
        switch coding {
        case .aes128gcm:
            do {
                try WebPushMessage.checkHeader(request.body)
            } catch {
                throw .webPush(400, "the body is not an aes128gcm message: \(error.detail)")
            }
            forwarded = request.body
        case .aesgcm:
            let headers = try AESGCMHeaders(
                encryption: request.header("encryption"), cryptoKey: request.header("crypto-key"))
            forwarded = try headers.message(body: request.body).frame
        }
        bodyByteCount = request.body.count
    }

    /// RFC 8030 §5.2's `TTL`, `1*DIGIT` of any length, read whole (`0000000120` is 120 s, and
    /// `0000000000` "now or never"), kept at most ``maximumTTL``: a push service keeps what it
    /// will and says so. Nil for anything but digits.
    static func ttl(_ text: String) -> Int? {
        guard !text.isEmpty else { return nil }
        var seconds = 0
        for byte in text.utf8 {
            guard (0x30...0x39).contains(byte) else { return nil }
            // Below the maximum before this digit, so the product never overflows.
            seconds = min(seconds * 10 + Int(byte - 0x30), maximumTTL)
        }
        return seconds
    }

    /// APNs' priority for the urgency: 10 (at once) for `high` and `normal`, 5 (when the device
    /// is awake anyway) for `low` and `very-low`.
    var apnsPriority: Int { urgency == "high" || urgency == "normal" ? 10 : 5 }
}
