/// Sealed content kept for a device to fetch, because it does not fit an APNs payload
/// (gateway-v1.md, "Fetched content"): the push carries a reference to it, sealed to the device.
/// The gateway cannot open it (a Web Push message sealed by its sender, or an envelope sealed to
/// the device), and keeps of the capability that fetches it only the SHA-256.
package struct FetchObject: Sendable, Equatable {
    /// The object's id, 16 random bytes in base64url: the last segment of its URL.
    package let id: String
    /// The app of the push that refers to it.
    package let app: AppID
    /// The device it is for, an id within ``app``.
    package let deviceID: String
    /// Who made it: the app's own pushes (``appSource``), or one relay endpoint (its id's
    /// SHA-256, as the endpoint is stored). Each source of a device keeps its own newest
    /// ``perDeviceLimit``, so that one sender flooding a phone never evicts the app's pending
    /// content, nor another sender's.
    package let source: String
    /// SHA-256 of the capability that alone fetches it.
    package let capabilityHash: [UInt8]
    /// The sealed content.
    package let body: [UInt8]
    /// When it was stored, milliseconds since the epoch.
    package let createdAt: Int64
    /// When it stops being served, milliseconds since the epoch: the reference's `expires`, until
    /// it is fetched, then at most ``fetchedGrace`` later.
    package let expiresAt: Int64

    /// How long an object stays fetchable once fetched, in milliseconds: a minute, for an
    /// extension that was stopped before it could show what it fetched, and gets the push again.
    package static let fetchedGrace: Int64 = 60_000
    /// How many wrong capabilities end an object: it is deleted at the fifth.
    package static let refusalLimit = 5
    /// How many objects one device keeps at most of each source: a newer one deletes the
    /// source's oldest beyond, as APNs itself keeps only a phone's last notification while it is
    /// off, so that a sender posting to a phone that never fetches fills no disk.
    package static let perDeviceLimit = 100
    /// The ``source`` of the app's own pushes.
    package static let appSource = "app"

    /// A value of these members.
    package init(
        id: String, app: AppID, deviceID: String, source: String, capabilityHash: [UInt8], body: [UInt8],
        createdAt: Int64, expiresAt: Int64
    ) {
        self.id = id
        self.app = app
        self.deviceID = deviceID
        self.source = source
        self.capabilityHash = capabilityHash
        self.body = body
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
