internal import PushSealCore
internal import PushSealEncryptor
internal import PushSealGatewayModel

/// Seals one push once per device: for an APNs device with that device's public key and the
/// gateway's sender key of the same suite (auth mode), exactly as `pushseal encrypt` does (Apple's
/// payload rules, the contract when the configuration names one, the size limit); for a Web Push
/// subscription with RFC 8291, the content mapped by ``SubscriptionContent``. What it returns is
/// ready for the outbox: headers and the sealed message, never the content.
final class PushSealer: Sendable {
    /// The most devices whose static Diffie-Hellman with a sender key is kept, every app's
    /// together: some 4.4 MB of X25519 agreements, 5.3 MB of P-256 ones.
    static let agreementCapacity = 16_384

    private let senders: [PrivateKey]
    private let contract: PayloadContract?
    /// How a subscription's content is made; nil without `webpush` (no subscription registers).
    private let subscriptionContent: SubscriptionContent?
    /// Auth mode's static Diffie-Hellman of a sender key with each device key sealed for lately,
    /// so that a seal costs two scalar multiplications instead of three. The gateway's apps share
    /// one (an agreement is found by both keys, so one app's never serves another's), which keeps
    /// the memory it takes bounded however many apps there are.
    let agreements: HPKE.SenderAgreements

    /// A sealer with these sender keys (one per suite), `contract`, and subscriptions' content
    /// made as `subscriptionContent` says, keeping its agreements in `agreements`.
    init(
        senders: [PrivateKey], contract: PayloadContract?, subscriptionContent: SubscriptionContent?,
        agreements: HPKE.SenderAgreements = HPKE.SenderAgreements(capacity: agreementCapacity)
    ) {
        self.senders = senders
        self.contract = contract
        self.subscriptionContent = subscriptionContent
        self.agreements = agreements
    }

    /// Reads the sender keys (each file 0600, wiped after reading) and the contract.
    /// - Throws: ``GatewayError`` naming the file at fault.
    convenience init(
        senderKeyFiles: [String], contractFile: String?, subscriptionContent: SubscriptionContent?,
        agreements: HPKE.SenderAgreements
    ) throws(GatewayError) {
        var senders: [PrivateKey] = []
        for file in senderKeyFiles {
            var bytes = try ConfiguredFile.secret(file)
            defer { SecureMemory.wipe(&bytes) }
            let key: PrivateKey
            do {
                key = try PrivateKey(jwk: bytes)
            } catch {
                throw GatewayError("\(file) is not a private JWK: \(error)")
            }
            guard key.suite != .xChaCha else {
                throw GatewayError("\(file) is a shared key: a sender key is an X25519 or P-256 private JWK")
            }
            guard !senders.contains(where: { $0.suite == key.suite }) else {
                throw GatewayError("\(file): a second sender key for \(key.suite.name); give one per suite")
            }
            senders.append(key)
        }
        var contract: PayloadContract?
        if let contractFile {
            do {
                contract = try PayloadContract(json: try ConfiguredFile.contents(contractFile))
            } catch let error as GatewayError {
                throw error
            } catch {
                throw GatewayError("\(contractFile) is not a payload contract: \(error)")
            }
        }
        self.init(
            senders: senders, contract: contract, subscriptionContent: subscriptionContent, agreements: agreements)
    }

    /// Whether a device key of `suite` can be sealed for (the configuration has a sender key of it).
    func supports(_ suite: EnvelopeSuite) -> Bool { senders.contains { $0.suite == suite } }

    /// The payload to seal for every device: the media put in, an `event_id` added when it has
    /// none (one for the push, so that each device's ledger sees a repeat as one), the contract
    /// checked and its templates filled.
    /// - Returns: the payload and the collapse id the contract's route gives.
    func prepare(_ request: PushRequest) throws(APIError) -> (payload: JSONObject, collapseID: String?) {
        var payload = PayloadContract.completingEventID(request.payload)
        if let media = request.media { payload["media"] = .object(media.json) }
        do {
            try Encryptor.validate(payload, pushType: request.encryption.pushType)
        } catch {
            throw .invalid(JSONPath.root.member("payload"), Self.detail(error))
        }
        guard let contract else { return (payload, nil) }
        do {
            let prepared = try contract.prepareForSealing(payload)
            return (prepared.payload, prepared.collapseID)
        } catch {
            throw .invalid(JSONPath.root.member("payload"), "breaks the contract: \(Self.detail(error))")
        }
    }

    /// The delivery of `payload` to `device`: sealed with envelope-v1 for an APNs device, with
    /// RFC 8291 for a Web Push subscription.
    /// - Throws: ``APIError`` for a payload that breaks Apple's rules, a header that does, or a
    ///   payload that does not fit once sealed.
    func delivery(of payload: JSONObject, _ request: PushRequest, collapseID: String?, to device: Device)
        throws(APIError) -> NewDelivery
    {
        let collapseID = request.collapseID ?? collapseID
        let expiration = request.expiration.map(Int64.init)
        switch device.channel {
        case .apns(_, let topic, _, let jwk):
            do {
                let recipient = try Recipient(jwk: Array(jwk.utf8))
                let sender = senders.first { $0.suite == recipient.suite }
                let encryptor = try Encryptor(
                    recipient: recipient, sender: sender, options: request.encryption, agreements: agreements)
                let sealed = try encryptor.seal(payload)
                let options = APNsRequestOptions(
                    topic: topic, collapseID: collapseID, expiration: request.expiration, priority: request.priority)
                let apns = try APNsRequest(payload: sealed, pushType: request.encryption.pushType, options: options)
                return NewDelivery(
                    device: device, headers: apns.headers, body: apns.body, expiration: expiration,
                    bodyTruncated: sealed.bodyTruncated)
            } catch let error as PushSealError where error.code == .payloadTooLarge {
                throw .unprocessable(JSONPath.root.member("payload"), Self.detail(error))
            } catch {
                throw .invalid(JSONPath.root.member("payload"), Self.detail(error))
            }
        case .webPush(let endpoint, let p256dh, let auth):
            guard let subscriptionContent else {
                // A subscription registers only with `webpush`: only a row changed by hand gets here.
                throw .unprocessable(JSONPath.root.member("to"), "device \(device.id): the gateway has no webpush")
            }
            func content(_ payload: JSONObject) -> [UInt8] {
                JSONWriter.bytes(
                    .object(subscriptionContent.json(payload: payload, collapseID: collapseID, web: request.web)))
            }
            var message = content(payload)
            let budget = WebPushMessage.maximumContentByteCount
            let truncating = request.encryption.overflow == .truncateBody && message.count > budget
            if truncating {
                message = try Self.truncated(payload, budget: budget, content: content)
            }
            let body: [UInt8]
            do {
                let subscription = try WebPushSubscription(endpoint: endpoint, p256dh: p256dh, auth: auth)
                body = try WebPushMessage.seal(message, for: subscription)
            } catch  where error.reason == .messageTooLarge {
                throw Self.contentTooLarge(message.count)
            } catch {
                // Checked when it was registered: only a row changed by hand gets here.
                throw .unprocessable(JSONPath.root.member("to"), "device \(device.id): \(error.detail)")
            }
            return NewDelivery(
                device: device, headers: WebPushHeaders.stored(priority: request.priority, collapseID: collapseID),
                body: body, expiration: expiration, bodyTruncated: truncating)
        }
    }

    /// The APNs delivery to `device` of `reference` (gateway-v1.md, "Fetched content"): the
    /// reference sealed to the device's key as the content `{"aps": {"alert": placeholder},
    /// "fetch": reference}` (the alert inside is what an extension that predates fetching shows),
    /// with `placeholder` outside as well.
    /// - Throws: ``APIError`` 422 when the device's key cannot be sealed for (a row changed by
    ///   hand: keys are checked when they register).
    func referenceDelivery(
        _ reference: FetchReference, placeholder: (title: String, body: String), to device: Device,
        options: APNsRequestOptions, expiration: Int64?
    ) throws(APIError) -> NewDelivery {
        guard case .apns(_, _, _, let jwk) = device.channel else {
            throw .unprocessable(nil, "device \(device.id) is a Web Push subscription: it fetches nothing")
        }
        do {
            let recipient = try Recipient(jwk: Array(jwk.utf8))
            var encryption = EncryptionOptions()
            encryption.placeholder = .text(title: placeholder.title, body: placeholder.body)
            let encryptor = try Encryptor(
                recipient: recipient, sender: senders.first { $0.suite == recipient.suite }, options: encryption,
                agreements: agreements)
            let alert = JSONObject([("title", .string(placeholder.title)), ("body", .string(placeholder.body))])
            let sealed = try encryptor.seal(
                JSONObject([
                    ("aps", .object(JSONObject([("alert", .object(alert))]))),
                    (FetchReference.member, .object(reference.json)),
                ]))
            let apns = try APNsRequest(payload: sealed, pushType: .alert, options: options)
            return NewDelivery(device: device, headers: apns.headers, body: apns.body, expiration: expiration)
        } catch {
            throw .unprocessable(nil, "device \(device.id): \(Self.detail(error))")
        }
    }

    /// The `content` of `payload` with the alert body shortened as `pushseal encrypt --truncate`
    /// does it (on a character boundary, ending in `…`) until it is at most `budget` bytes.
    private static func truncated(_ payload: JSONObject, budget: Int, content: (JSONObject) -> [UInt8])
        throws(APIError) -> [UInt8]
    {
        let whole = content(payload).count
        do {
            let shortened = try BodyTruncation.shorten(
                payload, toFit: budget, measuredBy: { content($0).count },
                tooLarge: { PushSealError(.payloadTooLarge, "") })
            return content(shortened)
        } catch {
            throw contentTooLarge(whole)
        }
    }

    /// The refusal of a Web Push message's content of `count` bytes.
    private static func contentTooLarge(_ count: Int) -> APIError {
        .unprocessable(
            JSONPath.root.member("payload"),
            "is \(count) bytes as a Web Push message's content (gateway-v1.md, \"Web Push\"); "
                + "at most \(WebPushMessage.maximumContentByteCount) fit, even with the alert body shortened")
    }

    private static func detail(_ error: any Error) -> String {
        (error as? PushSealError)?.detail ?? "\(error)"
    }
}
