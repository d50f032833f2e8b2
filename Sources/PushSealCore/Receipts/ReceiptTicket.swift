internal import PushSealPrimitives

/// Where and with what a device reports what it showed (envelope-v1.md, "Receipts"): the
/// `pushseal_receipt` member a gateway with receipts adds to a delivery.
///
/// ```json
/// "pushseal_receipt": {"url": "https://push.example.com/v1/receipts/<delivery>", "capability": "<16 bytes>"}
/// ```
///
/// A delivery carries two: one inside the sealed content, whose capability (the *display*
/// capability) only the holder of the device's key learns, and which may report `displayed` or
/// `degraded`; and one beside the envelope in the APNs payload, in clear, whose capability (the
/// *failure* capability) may report `degraded` alone, for a phone that could not open the
/// envelope. The capability never leaves this type except in ``json`` (which goes into the push)
/// and ``authorization`` (which goes to the URL alone).
public struct ReceiptTicket: Sendable, CustomStringConvertible {
    /// Where the receipt is posted: `https:`, under the media URL rule, ending in the delivery's id.
    public let url: String
    /// The bearer capability that alone reports on the delivery: 16 random bytes.
    let capability: SecretBytes

    /// The member of a payload (sealed content, or the APNs payload around the envelope) that holds
    /// a ticket.
    public static let member = "pushseal_receipt"
    /// The members of a ticket.
    static let members = ["url", "capability"]
    /// A capability's length in bytes: 128 bits.
    public static let capabilityByteCount = 16
    /// A delivery's id in receipt URLs: 16 random bytes, 22 characters of base64url.
    public static let deliveryIDByteCount = 16

    /// A ticket to report at `url` with a fresh random capability: the ticket (to put into the
    /// push), and the capability's hash (as ``capabilityHash(bearer:)`` makes it), which is all the
    /// server keeps of it.
    /// - Throws: `malformed-content` for a URL the media URL rule refuses.
    package static func make(url: String) throws(PushSealError) -> (ticket: ReceiptTicket, capabilityHash: [UInt8]) {
        try BearerReferenceMembers.checkURL(url, malformed: malformed)
        let capability = SecretBytes(randomCount: capabilityByteCount)
        return (ReceiptTicket(url: url, capability: capability), SHA256.hash(capability))
    }

    /// The hash under which a server keeps the capability presented as `bearer`; nil when it is not
    /// one (22 characters of base64url, 16 bytes).
    package static func capabilityHash(bearer: String) -> [UInt8]? {
        guard bearer.utf8.count == 22, let capability = Base64URL.decodeSecret(bearer),
            capability.count == capabilityByteCount
        else { return nil }
        return SHA256.hash(capability)
    }

    /// Whether `id` has the form of a delivery's id in a receipt URL.
    package static func isDeliveryID(_ id: String) -> Bool {
        id.utf8.count == 22 && Base64URL.decode(id)?.count == deliveryIDByteCount
    }

    private init(url: String, capability: SecretBytes) {
        self.url = url
        self.capability = capability
    }

    /// Reads and checks a `pushseal_receipt` member: an object of `url` (https, under the media URL
    /// rule) and `capability` (16 bytes of base64url), and nothing else.
    /// - Throws: `malformed-content`, naming the member.
    public init(json value: JSONValue) throws(PushSealError) {
        guard let json = value.objectValue else {
            throw PushSealError(.malformedContent, "$.\(Self.member) must be an object, not \(value.typeName)")
        }
        if let name = json.firstMember(notIn: Self.members) {
            throw Self.malformed(name, "is not a member of a receipt ticket")
        }
        let url = try BearerReferenceMembers.url(json, malformed: Self.malformed)
        let capability = try BearerReferenceMembers.capability(
            json, byteCount: Self.capabilityByteCount, malformed: Self.malformed)
        self.init(url: url, capability: capability)
    }

    /// The ticket in `payload`'s ``member``, or nil when it has none.
    /// - Throws: `malformed-content` for a member that is no ticket.
    public static func ticket(in payload: JSONObject) throws(PushSealError) -> ReceiptTicket? {
        guard let value = payload[member] else { return nil }
        return try ReceiptTicket(json: value)
    }

    /// Takes the ``member`` out of `payload`, whatever it holds: the ticket it held, or nil when it
    /// had none or one that is not a ticket (a receipt never stands in the way of a notification).
    public static func taken(from payload: inout JSONObject) -> ReceiptTicket? {
        guard let value = payload[member] else { return nil }
        payload[member] = nil
        return try? ReceiptTicket(json: value)
    }

    /// The ticket as it goes into a push (with the capability: never log it).
    public var json: JSONObject {
        JSONObject([("url", .string(url)), ("capability", .string(Base64URL.encodeSecret(capability)))])
    }

    /// The delivery's id: the last component of ``url``.
    public var deliveryID: String { String(url.split(separator: "/").last ?? "") }

    /// Where receipts sent late go as a batch: ``url`` without the delivery's id
    /// (`https://push.example.com/v1/receipts`).
    public var batchURL: String { String(url.dropLast(deliveryID.count + 1)) }

    /// This ticket's receipt of `outcome` as an item of a batch: `{"delivery", "capability",
    /// "outcome", "reason"?}`. It holds the capability: it goes to ``batchURL`` alone.
    public func batchItem(_ outcome: ReceiptOutcome) -> JSONObject {
        var item = JSONObject([
            ("delivery", .string(deliveryID)), ("capability", .string(Base64URL.encodeSecret(capability))),
        ])
        for (name, value) in outcome.json { item[name] = value }
        return item
    }

    /// The `Authorization` header's value that reports on the delivery: `Bearer <capability>`.
    public var authorization: String { "Bearer \(Base64URL.encodeSecret(capability))" }

    /// A readable form without the capability.
    public var description: String { "ReceiptTicket(\(url))" }

    private static func malformed(_ name: String, _ detail: String) -> PushSealError {
        PushSealError(.malformedContent, "\(JSONPath.root.member(member).member(name)) \(detail)")
    }
}
