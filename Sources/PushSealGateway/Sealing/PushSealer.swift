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

    /// The longest content, as compact JSON, that an APNs device fetches (gateway-v1.md,
    /// "Fetched content"): 16 KiB, four times what a push carries.
    static let maximumFetchedContentByteCount = 16_384

    /// The delivery of `payload` to `device`: sealed with envelope-v1 for an APNs device, with
    /// RFC 8291 for a Web Push subscription. With `keep`, an APNs alert push whose sealed payload
    /// would not fit is sealed whole into an envelope that `keep` stores for `device` to fetch,
    /// and the push carries the reference `keep` returns (before any truncation: content kept
    /// whole wins over a shortened body).
    /// - Throws: ``APIError`` for a payload that breaks Apple's rules, a header that does, or a
    ///   payload that does not fit once sealed (nor fetched); what `keep` throws.
    func delivery(
        of payload: JSONObject, _ request: PushRequest, collapseID: String?, to device: Device,
        receipt: DeliveryReceipt? = nil, keep: ((_ envelope: [UInt8], _ device: Device) throws -> FetchReference)? = nil
    ) throws -> NewDelivery {
        var delivery = try sealedDelivery(
            of: payload, request, collapseID: collapseID, to: device, receipt: receipt, keep: keep)
        delivery.receipt = receipt?.credentials
        return delivery
    }

    /// ``delivery(of:_:collapseID:to:receipt:keep:)`` before its receipt's credentials are added.
    private func sealedDelivery(
        of payload: JSONObject, _ request: PushRequest, collapseID: String?, to device: Device,
        receipt: DeliveryReceipt?, keep: ((_ envelope: [UInt8], _ device: Device) throws -> FetchReference)?
    ) throws -> NewDelivery {
        let collapseID = request.collapseID ?? collapseID
        let expiration = request.expiration.map(Int64.init)
        switch device.channel {
        case .apns(_, let topic, _, let jwk):
            let options = APNsRequestOptions(
                topic: topic, collapseID: collapseID, expiration: request.expiration, priority: request.priority)
            var payload = payload
            var encryption = request.encryption
            if let receipt {
                payload[ReceiptTicket.member] = .object(receipt.display.json)
                encryption.outerMembers[ReceiptTicket.member] = .object(receipt.failure.json)
            }
            do {
                let recipient = try Recipient(jwk: Array(jwk.utf8))
                let sender = senders.first { $0.suite == recipient.suite }
                let fetching = keep != nil && request.encryption.pushType == .alert
                if fetching { encryption.overflow = .fail }
                let sealed: SealedPayload
                do {
                    sealed = try Encryptor(
                        recipient: recipient, sender: sender, options: encryption, agreements: agreements
                    ).seal(payload)
                } catch let error as PushSealError where error.code == .payloadTooLarge && fetching {
                    let content = JSONWriter.bytes(.object(payload))
                    if content.count <= Self.maximumFetchedContentByteCount, let keep {
                        let envelope = try Envelope.seal(
                            padded: Padding.pad(
                                content,
                                to: Padding.paddedLength(
                                    contentCount: content.count, block: request.encryption.padBlock,
                                    maximum: Self.maximumFetchedContentByteCount + 1) ?? content.count + 1),
                            for: recipient, sender: sender, ephemeral: nil, nonce: nil, agreements: agreements)
                        let kept: FetchReference
                        do {
                            kept = try keep(envelope.bytes, device)
                        } catch {
                            throw KeepFailure(error: error)
                        }
                        return try reference(
                            to: kept, for: device, recipient: recipient,
                            encryption: encryption, clearFrom: payload, options: options,
                            expiration: expiration, receipt: receipt?.display)
                    }
                    guard request.encryption.overflow == .truncateBody else {
                        throw PushSealError(
                            .payloadTooLarge,
                            "\(error.detail); it is \(content.count) bytes as compact JSON, over the "
                                + "\(Self.maximumFetchedContentByteCount) a device fetches")
                    }
                    encryption.overflow = .truncateBody
                    sealed = try Encryptor(
                        recipient: recipient, sender: sender, options: encryption, agreements: agreements
                    ).seal(payload)
                }
                let apns = try APNsRequest(payload: sealed, pushType: request.encryption.pushType, options: options)
                return NewDelivery(
                    device: device, headers: apns.headers, body: apns.body, expiration: expiration,
                    bodyTruncated: sealed.bodyTruncated)
            } catch let failure as KeepFailure {
                throw failure.error
            } catch let error as PushSealError where error.code == .payloadTooLarge {
                throw APIError.unprocessable(JSONPath.root.member("payload"), Self.detail(error))
            } catch {
                throw APIError.invalid(JSONPath.root.member("payload"), Self.detail(error))
            }
        case .webPush(let endpoint, let p256dh, let auth):
            guard let subscriptionContent else {
                // A subscription registers only with `webpush`: only a row changed by hand gets here.
                throw APIError.unprocessable(
                    JSONPath.root.member("to"), "device \(device.id): the gateway has no webpush")
            }
            // The receipt stands beside `notification`, which a browser's declarative display reads.
            func content(_ payload: JSONObject) -> [UInt8] {
                var content = subscriptionContent.json(payload: payload, collapseID: collapseID, web: request.web)
                if let receipt { content[ReceiptTicket.member] = .object(receipt.display.json) }
                return JSONWriter.bytes(.object(content))
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
                throw APIError.unprocessable(JSONPath.root.member("to"), "device \(device.id): \(error.detail)")
            }
            return NewDelivery(
                device: device, headers: WebPushHeaders.stored(priority: request.priority, collapseID: collapseID),
                body: body, expiration: expiration, bodyTruncated: truncating)
        }
    }

    /// What storing content to fetch threw, carried past the sealing errors' mapping unchanged.
    private struct KeepFailure: Error {
        let error: any Error
    }

    /// The APNs delivery to `device` of a relay message kept to fetch as `reference`, with the
    /// relay's `placeholder` and the members of `clear` left in clear beside the envelope (the
    /// relay endpoint's name) (``reference(to:for:recipient:encryption:clearFrom:options:expiration:)``).
    /// - Throws: ``APIError`` 422 when the device's key cannot be sealed for (a row changed by
    ///   hand: keys are checked when they register).
    func referenceDelivery(
        _ reference: FetchReference, placeholder: (title: String, body: String), clear: JSONObject = JSONObject(),
        to device: Device, options: APNsRequestOptions, expiration: Int64?
    ) throws(APIError) -> NewDelivery {
        do {
            guard case .apns(_, _, _, let jwk) = device.channel else {
                throw PushSealError(.invalidKey, "a Web Push subscription fetches nothing")
            }
            var encryption = EncryptionOptions()
            encryption.placeholder = .text(title: placeholder.title, body: placeholder.body)
            encryption.clearMembers = clear.members.map(\.name)
            return try self.reference(
                to: reference, for: device, recipient: try Recipient(jwk: Array(jwk.utf8)), encryption: encryption,
                clearFrom: clear, options: options, expiration: expiration)
        } catch {
            throw .unprocessable(nil, "device \(device.id): \(Self.detail(error))")
        }
    }

    /// The APNs alert push to `device` that carries `reference` (gateway-v1.md, "Fetched
    /// content"): sealed to `recipient` as the content `{"aps": {"alert": <placeholder>},
    /// "fetch": reference}` (the alert inside is what an extension that predates fetching
    /// shows), with the placeholder outside too, and the members `encryption` leaves in clear
    /// copied from `payload` so that they stay in clear.
    private func reference(
        to reference: FetchReference, for device: Device, recipient: Recipient, encryption: EncryptionOptions,
        clearFrom payload: JSONObject?, options: APNsRequestOptions, expiration: Int64?,
        receipt: ReceiptTicket? = nil
    ) throws -> NewDelivery {
        var aps = JSONObject([("alert", .object(encryption.placeholder.alert))])
        var content = JSONObject()
        for name in encryption.clearMembers {
            if EncryptionOptions.clearableApsMembers.contains(name), let value = payload?["aps"]?.objectValue?[name] {
                aps[name] = value
            } else if let value = payload?[name] {
                content[name] = value
            }
        }
        content["aps"] = .object(aps)
        content[FetchReference.member] = .object(reference.json)
        if let receipt { content[ReceiptTicket.member] = .object(receipt.json) }
        var referenceEncryption = encryption
        referenceEncryption.pushType = .alert
        referenceEncryption.overflow = .fail
        let sealed = try Encryptor(
            recipient: recipient, sender: senders.first { $0.suite == recipient.suite },
            options: referenceEncryption, agreements: agreements
        ).seal(content)
        let apns = try APNsRequest(payload: sealed, pushType: .alert, options: options)
        return NewDelivery(device: device, headers: apns.headers, body: apns.body, expiration: expiration)
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
