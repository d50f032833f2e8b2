public import PushSealCore

/// Seals APNs payloads for one recipient: what a backend calls before it sends a push.
///
/// Build one per recipient key and reuse it from any number of tasks: it is an immutable value,
/// and the recipient's key is parsed and validated once, when the encryptor is made.
///
/// ```swift
/// let encryptor = try Encryptor(recipient: Recipient(jwk: deviceKeyJSON))
/// let sealed = try encryptor.seal(json: Array(#"{"aps":{"alert":{"title":"Hi","body":"Secret"}}}"#.utf8))
/// // sealed.bytes: {"aps":{"alert":{…placeholder…},"mutable-content":1},"enc":"AQEA…"}
/// ```
public struct Encryptor: Sendable {
    /// Whom payloads are sealed for.
    public let recipient: Recipient
    /// The sender's key, for HPKE auth mode; nil for base mode.
    public let sender: PrivateKey?
    /// How the outer payload is shaped.
    public let options: EncryptionOptions
    /// The rendered outer payload around the envelope, when it does not depend on the payload
    /// (nothing is left in clear): rendered once, not per message.
    private let fixedOuterPayload: OuterPayload?
    /// Where auth mode's static Diffie-Hellman with the recipient is kept between encryptors, if
    /// anywhere.
    private let agreements: HPKE.SenderAgreements?

    /// An encryptor for `recipient`.
    /// - Throws: `PushSealError.Code.invalidKey` when `sender` does not fit the recipient's suite,
    ///   `PushSealError.Code.invalidPayload` when the options are invalid.
    public init(recipient: Recipient, sender: PrivateKey? = nil, options: EncryptionOptions = EncryptionOptions())
        throws
    {
        try self.init(recipient: recipient, sender: sender, options: options, agreements: nil)
    }

    /// As ``init(recipient:sender:options:)``, keeping the sender's static Diffie-Hellman with
    /// the recipient in `agreements`, so that a sealer that seals for the same devices again and
    /// again (the gateway) computes it once per device.
    package init(
        recipient: Recipient, sender: PrivateKey?, options: EncryptionOptions, agreements: HPKE.SenderAgreements?
    ) throws {
        try options.validate()
        if let sender {
            guard recipient.suite.isHPKE else {
                throw PushSealError(.invalidKey, "a shared (oct) recipient key has no auth mode: drop the sender key")
            }
            guard sender.suite == recipient.suite, sender.publicKey != nil else {
                throw PushSealError(
                    .invalidKey,
                    "the sender key is \(sender.suite.name) but the recipient is \(recipient.suite.name): they must match"
                )
            }
        }
        self.recipient = recipient
        self.sender = sender
        self.options = options
        self.agreements = agreements
        self.fixedOuterPayload =
            options.clearMembers.isEmpty ? OuterPayload(payload: JSONObject(), options: options) : nil
    }

    /// Parses, validates and seals a payload given as JSON bytes.
    /// - Throws: `PushSealError.Code.invalidPayload` (not JSON, or against Apple's rules, with the
    ///   JSON path) or `PushSealError.Code.payloadTooLarge` (with both sizes).
    public func seal(json bytes: some Collection<UInt8>) throws -> SealedPayload {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw PushSealError(.invalidPayload, "the payload is not JSON: \(error)")
        }
        guard let payload = value.objectValue else {
            throw PayloadValidator.invalid(.root, "must be a JSON object, not \(value.typeName)")
        }
        return try seal(payload)
    }

    /// Checks `payload` against Apple's rules for `pushType`, as ``seal(_:)`` does first, without
    /// sealing anything (a service that seals once per device checks once, up front).
    /// - Throws: `PushSealError.Code.invalidPayload` naming the JSON path.
    public static func validate(_ payload: JSONObject, pushType: PushType) throws {
        try PayloadValidator.validate(payload, pushType: pushType)
    }

    /// Validates and seals `payload`.
    public func seal(_ payload: JSONObject) throws -> SealedPayload {
        try PayloadValidator.validate(payload, pushType: options.pushType)
        let outer = fixedOuterPayload ?? OuterPayload(payload: payload, options: options)
        let limit = options.pushType.sizeLimit
        let overhead = Envelope.overhead(suite: recipient.suite, kid: recipient.kid, skid: sender?.kid)
        let largestPadded = outer.largestEnvelope(within: limit) - overhead

        var content = JSONWriter.bytes(.object(payload))
        var truncated = false
        if Padding.paddedLength(contentCount: content.count, block: options.padBlock, maximum: largestPadded) == nil {
            let tooLarge = {
                let needed = outer.byteCount(envelopeByteCount: overhead + content.count + 1)
                return PushSealError(
                    .payloadTooLarge,
                    "the sealed payload would be \(needed) bytes, over the \(limit)-byte limit for \(options.pushType) pushes"
                )
            }
            guard options.overflow == .truncateBody else { throw tooLarge() }
            let shortened = try BodyTruncation.shorten(payload, toFit: largestPadded - 1, tooLarge: tooLarge)
            content = JSONWriter.bytes(.object(shortened))
            truncated = true
        }
        guard
            let paddedLength = Padding.paddedLength(
                contentCount: content.count, block: options.padBlock, maximum: largestPadded)
        else {
            throw PushSealError(.payloadTooLarge, "the payload does not fit the \(limit)-byte limit")
        }
        let envelope = try Envelope.seal(
            padded: Padding.pad(content, to: paddedLength), for: recipient, sender: sender, ephemeral: nil, nonce: nil,
            agreements: agreements)
        return SealedPayload(bytes: outer.bytes(with: envelope), envelope: envelope, bodyTruncated: truncated)
    }
}
