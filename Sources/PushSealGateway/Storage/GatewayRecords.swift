internal import PushSealEncryptor

/// The APNs environment a device token belongs to.
enum APNsEnvironment: String, Sendable, CaseIterable {
    /// `api.push.apple.com`.
    case production
    /// `api.sandbox.push.apple.com`.
    case sandbox
}

/// The two ways the gateway reaches a device, each delivered by workers of its own.
enum DeliveryKind: String, Sendable, CaseIterable {
    /// An iPhone or iPad (or Mac) through APNs.
    case apns
    /// A browser or an Android app through its Web Push service (RFC 8030).
    case webPush = "webpush"
}

/// Where a device is reached, and the key its pushes are sealed for.
enum DeviceChannel: Sendable, Equatable {
    /// APNs: the device token (lower-case hex), the app's bundle id (`apns-topic`), the
    /// environment, and the device's public JWK (compact JSON: X25519 or P-256, never a private
    /// or shared key).
    case apns(token: String, topic: String, environment: APNsEnvironment, publicKeyJWK: String)
    /// Web Push: the subscription's endpoint, and its keys in base64url (`p256dh`, the receiver's
    /// public key, and `auth`, the authentication secret, which is never shown by the API).
    case webPush(endpoint: String, p256dh: String, auth: String)

    /// Which workers deliver to it.
    var kind: DeliveryKind {
        switch self {
        case .apns: .apns
        case .webPush: .webPush
        }
    }

    /// What a delivery is addressed to, and what a "gone" answer is about: the device token, or
    /// the endpoint. A device registered again with another address is not marked by an answer
    /// about its old one.
    var address: String {
        switch self {
        case .apns(let token, _, _, _): token
        case .webPush(let endpoint, _, _): endpoint
        }
    }
}

/// A registered device: the backend's ids, and where and how to push to it.
struct Device: Sendable, Equatable {
    /// The backend's id for the device (the path of `/v1/devices/{id}`).
    let id: String
    /// The backend's opaque id of the device's user.
    let user: String
    /// APNs or Web Push, with the address and the key.
    let channel: DeviceChannel
    /// When the device was last registered, milliseconds since the epoch.
    let registeredAt: Int64
    /// When its push service said the address is no longer valid, if it did since the last
    /// registration.
    let unregisteredAt: Int64?
}

/// How a delivery stands.
enum DeliveryStatus: String, Sendable {
    /// Waiting for its turn, or for a retry.
    case queued
    /// APNs or the push service accepted it.
    case sent
    /// Refused for good, or every retry failed.
    case failed
    /// The device's token or subscription is no longer valid; nothing was (or will be) sent to it.
    case unregistered
    /// Its `apns-expiration` passed before it could be sent.
    case expired
}

/// One push to one device, sealed for it: a row of the outbox.
struct OutboxDelivery: Sendable, Equatable {
    /// The row's id.
    let id: Int64
    /// The push it belongs to.
    let pushID: String
    /// The device it goes to.
    let deviceID: String
    /// Which workers send it.
    let kind: DeliveryKind
    /// The device token, or the Web Push endpoint, as it was when the push was accepted.
    let address: String
    /// Which APNs host, for an APNs delivery.
    let environment: APNsEnvironment?
    /// The request headers, in order: APNs' (topic, push type, priority, …), or RFC 8030's
    /// `urgency` and `topic` (the `TTL` is computed as the delivery leaves, from ``expiration``).
    let headers: [(name: String, value: String)]
    /// What is sent: the sealed outer APNs payload (ciphertext and placeholder), or the
    /// `aes128gcm` Web Push message; never the content.
    let body: [UInt8]
    /// The push's expiration, a UNIX time, if it has one.
    let expiration: Int64?
    /// Requests made so far.
    let attempts: Int
    /// When it was accepted, milliseconds since the epoch.
    let acceptedAt: Int64
    /// True when, as it was claimed, its device was marked unregistered for this address
    /// (another push's answer): it is not sent.
    let addressIsGone: Bool

    static func == (lhs: OutboxDelivery, rhs: OutboxDelivery) -> Bool { lhs.id == rhs.id }

    /// The most requests a stored delivery may count: far above any retry limit, and far below
    /// what arithmetic on it could overflow.
    static let maximumStoredAttempts = 1_000_000

    /// Why the stored row cannot be processed, if it cannot: a value outside what the API accepts
    /// (written by an older version, or by hand). Such a delivery fails for good with this
    /// reason; it must never reach arithmetic that could trap and take its worker down.
    var defect: String? {
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

/// A delivery to be stored with its push: everything but the id, attempts and status.
struct NewDelivery: Sendable {
    /// The device.
    let device: Device
    /// The request headers (APNs', or RFC 8030's).
    let headers: [(name: String, value: String)]
    /// The sealed outer payload, or the Web Push message.
    let body: [UInt8]
    /// The push's expiration, if any.
    let expiration: Int64?
    /// True when the alert body was shortened to fit (the push's `truncate` option).
    var bodyTruncated = false

    /// The kinds of `deliveries`: whose workers a push of them wakes.
    static func kinds(of deliveries: [NewDelivery]) -> Set<DeliveryKind> {
        Set(deliveries.map(\.device.channel.kind))
    }
}

/// What storing a push came to.
enum PushAcceptance: Sendable, Equatable {
    /// Stored, with its deliveries.
    case accepted
    /// Its idempotency key was used before, by the same request: the earlier push's id.
    case repeated(String)
    /// Its idempotency key was used before, by a different request: the earlier push's id.
    case conflict(String)
}

/// An instance of the gateway, as its heartbeat records it (the status page lists them).
struct InstanceRecord: Sendable, Equatable {
    /// Its id: the host name and a random suffix of its start.
    let id: String
    /// The build it runs (``GatewayVersion``).
    let version: String
    /// When it started, milliseconds since the epoch.
    let startedAt: Int64
    /// When it last said it was alive.
    let heartbeatAt: Int64
}

/// How many deliveries ended with one status and reason, for the status page.
struct OutcomeCount: Sendable, Equatable {
    let status: DeliveryStatus
    let reason: String?
    let count: Int
}

/// How many queued deliveries wait to be tried again after one reason, for the status page: the
/// reason of their last attempt, and when the soonest of them is due.
struct RetryingCount: Sendable, Equatable {
    /// The last attempt's reason (APNs' reason, a push service's status and words, a transport error).
    let reason: String
    /// Deliveries queued after it.
    let count: Int
    /// When the soonest of them is due, milliseconds since the epoch.
    let nextAttemptAt: Int64
}

/// What happened to a delivery, for `GET /v1/pushes/{id}`.
struct DeliveryState: Sendable, Equatable {
    /// Its outbox row: the order of a push's deliveries, and their cursor.
    var rowID: Int64 = 0
    /// The device.
    let deviceID: String
    /// The status.
    let status: DeliveryStatus
    /// APNs' `apns-id` once sent.
    let apnsID: String?
    /// APNs' reason, the push service's status and words, or the transport error, once failed
    /// (or between retries).
    let reason: String?
    /// Requests made so far.
    let attempts: Int
}

/// A stored push.
struct PushRecord: Sendable, Equatable {
    /// The push's id.
    let id: String
    /// When it was accepted, milliseconds since the epoch.
    let acceptedAt: Int64
    /// Its deliveries, one per device, in order (a page of them when a limit was asked).
    let deliveries: [DeliveryState]
    /// How many of all its deliveries stand in each status.
    var counts: [DeliveryStatus: Int] = [:]
}

/// How a delivery attempt ended, as the outbox records it.
enum DeliveryOutcome: Sendable, Equatable {
    /// APNs' 200 with its id, or a push service's 2xx.
    case sent(apnsID: String?)
    /// Refused for good.
    case failed(reason: String)
    /// Try again at `at` (milliseconds since the epoch).
    case retry(at: Int64, reason: String)
    /// The address is no longer valid; `timestamp` is APNs' (milliseconds), when it gave one.
    case unregistered(reason: String, timestamp: Int64?)
    /// Its expiration passed.
    case expired
}

extension DeliveryOutcome {
    /// The status it leaves the delivery in (`queued` for a retry), and the reason shown with it.
    var statusAndReason: (status: DeliveryStatus, reason: String?) {
        switch self {
        case .sent: (.sent, nil)
        case .failed(let reason): (.failed, reason)
        case .unregistered(let reason, _): (.unregistered, reason)
        case .expired: (.expired, "Expired")
        case .retry(_, let reason): (.queued, reason)
        }
    }
}
