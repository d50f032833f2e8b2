internal import PushSealCore
internal import PushSealPrimitives

/// What a bearer token may do.
enum AccessScope: String, Sendable, CaseIterable, Comparable {
    /// Register, update and delete devices.
    case devices
    /// Send pushes.
    case pushes
    /// Read devices and pushes' status.
    case read
    /// Everything.
    case admin

    static func < (lhs: AccessScope, rhs: AccessScope) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A stored access token: its id, the SHA-256 of its secret (never the secret), its scopes.
struct AccessTokenRecord: Sendable, Equatable {
    /// The public part of the token, shown in lists.
    let id: String
    /// SHA-256 of the secret part.
    let secretHash: [UInt8]
    /// What it may do.
    let scopes: Set<AccessScope>
    /// When it was made, milliseconds since the epoch.
    let createdAt: Int64
    /// When it was revoked, if it was.
    let revokedAt: Int64?
    /// The operator's name for it (which backend, which environment), if given.
    var label: String? = nil
    /// When it stops being accepted, if it expires.
    var expiresAt: Int64? = nil
    /// When a request last presented it (to the minute), if one did.
    var lastUsedAt: Int64? = nil

    /// Whether it may do what `scope` allows (`admin` may do everything).
    func allows(_ scope: AccessScope) -> Bool {
        revokedAt == nil && (scopes.contains(scope) || scopes.contains(.admin))
    }

    /// Whether it is accepted at `time`: not revoked, not expired.
    func isValid(at time: Int64) -> Bool {
        revokedAt == nil && expiresAt.map { time < $0 } != false
    }
}

/// Bearer tokens: `psg_<id>_<secret>`, 8 random bytes of id in hex and 32 of secret in base64url.
/// Only the id and SHA-256 of the secret are stored, and a presented secret is compared in
/// constant time.
enum AccessTokens {
    /// A new token with `scopes` (and a `label`, an expiry): the text to print once, and the
    /// record to store.
    static func make(scopes: Set<AccessScope>, at time: Int64, label: String? = nil, expiresAt: Int64? = nil)
        -> (text: String, record: AccessTokenRecord)
    {
        let id = HexDigits.lowercase(SecureRandom.bytes(8))
        var secret = SecureRandom.bytes(32)
        defer { SecureMemory.wipe(&secret) }
        let record = AccessTokenRecord(
            id: id, secretHash: SHA256.hash(secret), scopes: scopes, createdAt: time, revokedAt: nil, label: label,
            expiresAt: expiresAt)
        return ("psg_\(id)_\(Base64URL.encode(secret))", record)
    }

    /// The id and secret of a presented token, if it has the token's form: `psg_`, 16 lowercase
    /// hex digits, `_`, and the base64url of 32 bytes (whose alphabet has `_` too). Read as bytes,
    /// not characters: every byte of the form is ASCII.
    static func parse(_ text: String) -> (id: String, secret: [UInt8])? {
        let bytes = text.utf8
        guard bytes.starts(with: "psg_".utf8) else { return nil }
        let idStart = bytes.index(bytes.startIndex, offsetBy: 4)
        guard let idEnd = bytes.index(idStart, offsetBy: 16, limitedBy: bytes.endIndex), idEnd < bytes.endIndex,
            bytes[idEnd] == UInt8(ascii: "_"),
            bytes[idStart..<idEnd].allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
            let secret = Base64URL.decode(bytes[bytes.index(after: idEnd)...]), secret.count == 32
        else { return nil }
        return (String(decoding: bytes[idStart..<idEnd], as: UTF8.self), secret)
    }

    /// Whether `secret` is the one `record` was made with, compared in constant time.
    static func matches(_ secret: [UInt8], _ record: AccessTokenRecord) -> Bool {
        ConstantTime.equals(SHA256.hash(secret), record.secretHash)
    }
}
