internal import PushSealCore
internal import PushSealGatewayModel
internal import PushSealPrimitives

/// Bearer tokens: `psg_<id>_<secret>`, 8 random bytes of id in hex and 32 of secret in base64url.
/// Only the id and SHA-256 of the secret are stored, and a presented secret is compared in
/// constant time.
enum AccessTokens {
    /// A new token of `app` (nil: an operator's, over every app) with `scopes` (and a `label`,
    /// an expiry): the text to print once, and the record to store.
    static func make(
        scopes: Set<AccessScope>, in app: AppID? = .default, at time: Int64, label: String? = nil,
        expiresAt: Int64? = nil
    )
        -> (text: String, record: AccessTokenRecord)
    {
        let id = HexDigits.lowercase(SecureRandom.bytes(8))
        var secret = SecureRandom.bytes(32)
        defer { SecureMemory.wipe(&secret) }
        let record = AccessTokenRecord(
            id: id, secretHash: SHA256.hash(secret), scopes: scopes, createdAt: time, revokedAt: nil, label: label,
            expiresAt: expiresAt, app: app)
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
