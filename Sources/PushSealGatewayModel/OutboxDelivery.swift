internal import PushSealEncryptor

/// One push to one device, sealed for it: a row of the outbox.
package struct OutboxDelivery: Sendable, Equatable {
    /// The row's id.
    package let id: Int64
    /// The app of its push and its device.
    package let app: AppID
    /// The push it belongs to.
    package let pushID: String
    /// The device it goes to, an id within ``app``.
    package let deviceID: String
    /// Which workers send it.
    package let kind: DeliveryKind
    /// The device token, or the Web Push endpoint, as it was when the push was accepted.
    package let address: String
    /// Which APNs host, for an APNs delivery.
    package let environment: APNsEnvironment?
    /// The request headers, in order: APNs' (topic, push type, priority, …), or RFC 8030's
    /// `urgency` and `topic` (the `TTL` is computed as the delivery leaves, from ``expiration``).
    package let headers: [(name: String, value: String)]
    /// What is sent: the sealed outer APNs payload (ciphertext and placeholder), or the
    /// `aes128gcm` Web Push message; never the content.
    package let body: [UInt8]
    /// The push's expiration, a UNIX time, if it has one.
    package let expiration: Int64?
    /// Requests made so far.
    package let attempts: Int
    /// When it was accepted, milliseconds since the epoch.
    package let acceptedAt: Int64
    /// True when, as it was claimed, its device was marked unregistered for this address
    /// (another push's answer): it is not sent.
    package let addressIsGone: Bool
    /// The user of its device, for a Web Push delivery: the Web Push workers share their lanes to
    /// push services by user (`OriginLanes`). Nil for an APNs delivery, and for a device deleted
    /// since.
    package let user: String?

    /// A value of these members.
    package init(
        id: Int64, app: AppID, pushID: String, deviceID: String, kind: DeliveryKind, address: String,
        environment: APNsEnvironment?,
        headers: [(name: String, value: String)], body: [UInt8], expiration: Int64?, attempts: Int, acceptedAt: Int64,
        addressIsGone: Bool, user: String? = nil
    ) {
        self.user = user
        self.id = id
        self.app = app
        self.pushID = pushID
        self.deviceID = deviceID
        self.kind = kind
        self.address = address
        self.environment = environment
        self.headers = headers
        self.body = body
        self.expiration = expiration
        self.attempts = attempts
        self.acceptedAt = acceptedAt
        self.addressIsGone = addressIsGone
    }

    package static func == (lhs: OutboxDelivery, rhs: OutboxDelivery) -> Bool { lhs.id == rhs.id }

    /// The most requests a stored delivery may count: far above any retry limit, and far below
    /// what arithmetic on it could overflow.
    package static let maximumStoredAttempts = 1_000_000

    /// Why the stored row cannot be processed, if it cannot: a value outside what the API accepts
    /// (written by an older version, or by hand). Such a delivery fails for good with this
    /// reason; it must never reach arithmetic that could trap and take its worker down.
    package var defect: String? {
        if let expiration, !(0...Int64(APNsRequestOptions.maximumExpiration)).contains(expiration) {
            return "its expiration \(expiration) is outside 0 to \(APNsRequestOptions.maximumExpiration)"
        }
        if !(0...Self.maximumStoredAttempts).contains(attempts) {
            return "its attempt count \(attempts) is outside 0 to \(Self.maximumStoredAttempts)"
        }
        if acceptedAt < 0 { return "its acceptance time \(acceptedAt) is before 1970" }
        if kind == .apns && environment == nil { return "it goes to APNs and names no environment" }
        return nil
    }
}
