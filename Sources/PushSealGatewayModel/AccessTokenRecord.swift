/// A stored access token: its id, the SHA-256 of its secret (never the secret), its scopes.
package struct AccessTokenRecord: Sendable, Equatable {
    /// The public part of the token, shown in lists.
    package let id: String
    /// SHA-256 of the secret part.
    package let secretHash: [UInt8]
    /// What it may do.
    package let scopes: Set<AccessScope>
    /// When it was made, milliseconds since the epoch.
    package let createdAt: Int64
    /// When it was revoked, if it was.
    package let revokedAt: Int64?
    /// The operator's name for it (which backend, which environment), if given.
    package var label: String? = nil
    /// When it stops being accepted, if it expires.
    package var expiresAt: Int64? = nil
    /// When a request last presented it (to the minute), if one did.
    package var lastUsedAt: Int64? = nil
    /// The app whose devices, pushes and endpoints it reaches; nil for an operator's token, over
    /// every app.
    package var app: AppID? = .default

    /// A value of these members.
    package init(
        id: String, secretHash: [UInt8], scopes: Set<AccessScope>, createdAt: Int64, revokedAt: Int64?,
        label: String? = nil, expiresAt: Int64? = nil, lastUsedAt: Int64? = nil, app: AppID? = .default
    ) {
        self.id = id
        self.secretHash = secretHash
        self.scopes = scopes
        self.createdAt = createdAt
        self.revokedAt = revokedAt
        self.label = label
        self.expiresAt = expiresAt
        self.lastUsedAt = lastUsedAt
        self.app = app
    }

    /// Whether it may do what `scope` allows (`admin` may do everything).
    package func allows(_ scope: AccessScope) -> Bool {
        revokedAt == nil && (scopes.contains(scope) || scopes.contains(.admin))
    }

    /// Whether it is accepted at `time`: not revoked, not expired.
    package func isValid(at time: Int64) -> Bool {
        revokedAt == nil && expiresAt.map { time < $0 } != false
    }
}
