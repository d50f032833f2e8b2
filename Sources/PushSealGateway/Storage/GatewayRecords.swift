internal import PushSealEncryptor

/// The APNs environment a device token belongs to.
enum APNsEnvironment: String, Sendable, CaseIterable {
    /// `api.push.apple.com`.
    case production
    /// `api.sandbox.push.apple.com`.
    case sandbox
}

/// A registered device: where to push (token, topic, environment) and the public key to seal for.
struct Device: Sendable, Equatable {
    /// The backend's id for the device (the path of `/v1/devices/{id}`).
    let id: String
    /// The backend's opaque id of the device's user.
    let user: String
    /// The APNs device token, lower-case hex.
    let token: String
    /// The app's bundle id (`apns-topic`).
    let topic: String
    /// Production or sandbox.
    let environment: APNsEnvironment
    /// The device's public JWK, compact JSON: X25519 or P-256, never a private or shared key.
    let publicKeyJWK: String
    /// When the device was last registered, milliseconds since the epoch.
    let registeredAt: Int64
    /// When APNs said the token is no longer valid, if it did since the last registration.
    let unregisteredAt: Int64?
}

/// How a delivery stands.
enum DeliveryStatus: String, Sendable {
    /// Waiting for its turn, or for a retry.
    case queued
    /// APNs accepted it.
    case sent
    /// APNs refused it for good, or every retry failed.
    case failed
    /// The device's token is no longer valid; nothing was (or will be) sent to it.
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
    /// The device token.
    let token: String
    /// Which APNs host.
    let environment: APNsEnvironment
    /// The APNs request headers, in order (topic, push type, priority, …).
    let headers: [(name: String, value: String)]
    /// The sealed outer payload: ciphertext and placeholder, never the content.
    let body: [UInt8]
    /// `apns-expiration`, a UNIX time, if the push has one.
    let expiration: Int64?
    /// Requests made so far.
    let attempts: Int
    /// When it was accepted, milliseconds since the epoch.
    let acceptedAt: Int64
    /// True when, as it was claimed, its device was marked unregistered for this token (another
    /// push's answer): it is not sent.
    let tokenIsGone: Bool

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
        return nil
    }
}

/// A delivery to be stored with its push: everything but the id, attempts and status.
struct NewDelivery: Sendable {
    /// The device.
    let device: Device
    /// The APNs request headers.
    let headers: [(name: String, value: String)]
    /// The sealed outer payload.
    let body: [UInt8]
    /// `apns-expiration`, if any.
    let expiration: Int64?
}

/// What happened to a delivery, for `GET /v1/pushes/{id}`.
struct DeliveryState: Sendable, Equatable {
    /// The device.
    let deviceID: String
    /// The status.
    let status: DeliveryStatus
    /// APNs' `apns-id` once sent.
    let apnsID: String?
    /// APNs' reason, or the transport error, once failed (or between retries).
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
    /// Its deliveries, one per device.
    let deliveries: [DeliveryState]
}

/// How a delivery attempt ended, as the outbox records it.
enum DeliveryOutcome: Sendable, Equatable {
    /// 200, with APNs' id.
    case sent(apnsID: String?)
    /// Refused for good.
    case failed(reason: String)
    /// Try again at `at` (milliseconds since the epoch).
    case retry(at: Int64, reason: String)
    /// The token is no longer valid; `timestamp` is APNs' (milliseconds), when it gave one.
    case unregistered(reason: String, timestamp: Int64?)
    /// Its expiration passed.
    case expired
}
