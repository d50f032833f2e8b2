/// Where a device is reached, and the key its pushes are sealed for.
package enum DeviceChannel: Sendable, Equatable {
    /// APNs: the device token (lower-case hex), the app's bundle id (`apns-topic`), the
    /// environment, and the device's public JWK (compact JSON: X25519 or P-256, never a private
    /// or shared key).
    case apns(token: String, topic: String, environment: APNsEnvironment, publicKeyJWK: String)
    /// Web Push: the subscription's endpoint, and its keys in base64url (`p256dh`, the receiver's
    /// public key, and `auth`, the authentication secret, which is never shown by the API).
    case webPush(endpoint: String, p256dh: String, auth: String)

    /// Which workers deliver to it.
    package var kind: DeliveryKind {
        switch self {
        case .apns: .apns
        case .webPush: .webPush
        }
    }

    /// What a delivery is addressed to, and what a "gone" answer is about: the device token, or
    /// the endpoint. A device registered again with another address is not marked by an answer
    /// about its old one.
    package var address: String {
        switch self {
        case .apns(let token, _, _, _): token
        case .webPush(let endpoint, _, _): endpoint
        }
    }
}
