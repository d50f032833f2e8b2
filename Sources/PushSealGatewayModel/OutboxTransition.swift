/// What recording an attempt's end does to the outbox, as a value: which outcomes end a delivery
/// and which keep it queued, what an ended delivery keeps, when its device's address is found
/// gone, and which webhook event tells of it. The rules live here, apart from the SQL that applies
/// them (the storage's `OutboxFinish`), so that they are read, and tested, in one place.
package struct OutboxTransition: Equatable, Sendable {
    /// What becomes of the delivery.
    package enum Change: Equatable, Sendable {
        /// It ends with `status`, its reason (none when sent) and APNs' id (when sent by APNs). Its
        /// sealed body is dropped at once; the record stays for the retention time.
        case end(DeliveryStatus, reason: DeliveryReason?, apnsID: String?)
        /// It stays queued, its lease released, due again at `at` (milliseconds), with the reason
        /// it waits for.
        case retry(at: Int64, reason: DeliveryReason)
    }

    /// A device whose address an answer found gone. It is marked `unregistered` only while it
    /// still has that address and registered no later than `registeredBy` (APNs' timestamp, else
    /// the push's acceptance): a device that registered again since keeps its new registration.
    /// Once marked, its relay endpoints end, and stay ended if it registers again.
    package struct GoneAddress: Equatable, Sendable {
        /// The device's app.
        package let app: AppID
        /// The device.
        package let deviceID: String
        /// The APNs token or Web Push endpoint found gone.
        package let address: String
        /// The latest registration the answer speaks for, in milliseconds.
        package let registeredBy: Int64
        /// The answer that found it gone (`Unregistered`, `HTTP 410`, …).
        package let reason: DeliveryReason

        /// A value of these members.
        package init(app: AppID, deviceID: String, address: String, registeredBy: Int64, reason: DeliveryReason) {
            self.app = app
            self.deviceID = deviceID
            self.address = address
            self.registeredBy = registeredBy
            self.reason = reason
        }
    }

    /// The delivery's row.
    package let deliveryID: Int64
    /// What becomes of it.
    package let change: Change
    /// Its requests so far.
    package let attempts: Int
    /// When the attempt ended, in milliseconds.
    package let time: Int64
    /// The address the answer found gone, for an `unregistered` end.
    package let goneAddress: GoneAddress?

    /// The transition that recording `ended` makes.
    package init(_ ended: EndedAttempt) {
        deliveryID = ended.delivery.id
        attempts = ended.attempts
        time = ended.time
        switch ended.outcome {
        case .sent(let apnsID):
            change = .end(.sent, reason: nil, apnsID: apnsID)
            goneAddress = nil
        case .failed(let reason):
            change = .end(.failed, reason: reason, apnsID: nil)
            goneAddress = nil
        case .expired:
            change = .end(.expired, reason: .gateway(.expired), apnsID: nil)
            goneAddress = nil
        case .retry(let due, let reason):
            change = .retry(at: due, reason: reason)
            goneAddress = nil
        case .unregistered(let reason, let timestamp):
            change = .end(.unregistered, reason: reason, apnsID: nil)
            goneAddress = GoneAddress(
                app: ended.delivery.app, deviceID: ended.delivery.deviceID, address: ended.delivery.address,
                registeredBy: timestamp ?? ended.delivery.acceptedAt, reason: reason)
        }
    }

    /// The type of the webhook event that tells of the delivery's end; none for a retry.
    package var endEvent: WebhookEventType? {
        guard case .end(let status, _, _) = change else { return nil }
        return WebhookEventType(endOf: status)
    }

    /// Whether, under `routing`, the delivery (of `app`) was sent and its end queues no event:
    /// recording it is its row's update alone, which a store may share with the others of a burst.
    package func isPlainSend(routing: WebhookRouting, in app: AppID) -> Bool {
        guard case .end(.sent, _, _) = change else { return false }
        return routing.endpoints(for: .deliverySent, in: app).isEmpty
    }
}
