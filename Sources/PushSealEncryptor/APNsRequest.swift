internal import PushSealCore

/// The request options of the APNs provider API that go with a sealed payload.
public struct APNsRequestOptions: Sendable, Hashable {
    /// `apns-topic`: the app's bundle id (with `.voip` for VoIP pushes).
    public var topic: String
    /// `apns-collapse-id`: at most 64 bytes.
    public var collapseID: String?
    /// `apns-expiration`: a UNIX time from 0 to ``maximumExpiration``; 0 means deliver once or never.
    public var expiration: Int?
    /// `apns-priority`: 10 (immediate) or 5 (power-considerate); nil takes the push type's default.
    public var priority: Int?
    /// `apns-id`: a canonical UUID naming the notification; nil lets APNs assign one.
    public var apnsID: String?

    /// The latest `apns-expiration`: 2^32 − 1 (February 2106), so that every consumer can add
    /// to it or turn it into milliseconds without overflowing.
    public static let maximumExpiration = 4_294_967_295

    /// Options for `topic`.
    public init(
        topic: String, collapseID: String? = nil, expiration: Int? = nil, priority: Int? = nil, apnsID: String? = nil
    ) {
        self.topic = topic
        self.collapseID = collapseID
        self.expiration = expiration
        self.priority = priority
        self.apnsID = apnsID
    }
}

/// A sealed payload with the APNs request headers it must be sent with.
public struct APNsRequest: Sendable {
    /// The headers, in a fixed order: push type, topic, priority, then the optional ones.
    public let headers: [(name: String, value: String)]
    /// The sealed outer payload, compact JSON: the request body.
    public let body: [UInt8]

    /// Assembles the headers for `payload`.
    /// - Throws: `PushSealError.Code.invalidPayload` naming the header that breaks Apple's rules.
    public init(payload: SealedPayload, pushType: PushType, options: APNsRequestOptions) throws {
        try self.init(body: payload.bytes, pushType: pushType, options: options)
    }

    /// Assembles the headers for an outer payload sealed earlier (`body`, compact JSON).
    /// - Throws: `PushSealError.Code.invalidPayload` naming the header that breaks Apple's rules
    ///   (``APNsHeaderRules``: no value with a control character ever reaches the wire), or
    ///   `payloadTooLarge` when `body` is over the push type's size limit.
    public init(body: [UInt8], pushType: PushType, options: APNsRequestOptions) throws {
        guard body.count <= pushType.sizeLimit else {
            throw PushSealError(
                .payloadTooLarge, "the payload is \(body.count) bytes, over the \(pushType.sizeLimit)-byte limit")
        }
        try APNsHeaderRules.validateTopic(options.topic, pushType: pushType)
        let priority = options.priority ?? pushType.defaultPriority
        guard priority == 5 || priority == 10 else {
            throw PushSealError(.invalidPayload, "apns-priority must be 5 or 10, not \(priority)")
        }
        if pushType == .background, priority != 5 {
            throw PushSealError(.invalidPayload, "apns-priority must be 5 for background pushes (Apple rejects 10)")
        }
        var headers: [(name: String, value: String)] = [
            ("apns-push-type", pushType.name), ("apns-topic", options.topic), ("apns-priority", String(priority)),
        ]
        if let expiration = options.expiration {
            guard (0...APNsRequestOptions.maximumExpiration).contains(expiration) else {
                throw PushSealError(
                    .invalidPayload,
                    "apns-expiration must be a UNIX time from 0 to \(APNsRequestOptions.maximumExpiration), not \(expiration)"
                )
            }
            headers.append(("apns-expiration", String(expiration)))
        }
        if let collapseID = options.collapseID {
            try APNsHeaderRules.validateCollapseID(collapseID)
            headers.append(("apns-collapse-id", collapseID))
        }
        if let apnsID = options.apnsID {
            try APNsHeaderRules.validateAPNsID(apnsID)
            headers.append(("apns-id", apnsID))
        }
        self.headers = headers
        self.body = body
    }

    /// `{"headers": {...}, "payload": {...}}` as compact JSON, the shape of `--apns-request`.
    public var json: [UInt8] {
        var bytes = Array(#"{"headers":"#.utf8)
        JSONWriter.write(.object(JSONObject(headers.map { ($0.name, JSONValue.string($0.value)) })), into: &bytes)
        bytes += Array(#","payload":"#.utf8)
        bytes += body
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }
}
