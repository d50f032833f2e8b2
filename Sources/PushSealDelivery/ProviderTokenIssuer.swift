import Dispatch
internal import PushSealCore
internal import PushSealPrimitives

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Issues the ES256 JSON Web Token that authenticates a provider to APNs, and reuses it.
///
/// APNs refuses tokens older than an hour and answers `TooManyProviderTokenUpdates` to a
/// provider that mints them too often, so one token serves every request for at most
/// ``maximumAge`` (55 minutes) and is replaced before that, or once when APNs reports
/// `ExpiredProviderToken` for it. Safe to use from any thread.
public final class ProviderTokenIssuer: @unchecked Sendable {
    /// How long a token is reused: 55 minutes, inside APNs' one hour.
    public static let maximumAge = 55 * 60

    private let signingKey: P256.SigningKey
    private let keyID: String
    private let teamID: String
    private let now: @Sendable () -> Int
    private let queue = DispatchQueue(label: "pushseal.provider-token")
    private var current: (token: String, issuedAt: Int)?
    private var issued = 0

    /// An issuer for the key `keyID` of team `teamID`, from the `.p8` file's PEM text.
    /// - Parameters:
    ///   - authKeyPEM: the `.p8` file's content (PKCS#8 PEM, P-256).
    ///   - keyID: the key's id, the JWT `kid`.
    ///   - teamID: the developer team id, the JWT `iss`.
    ///   - now: the clock, in UNIX seconds; nil reads the system clock (tests pass their own).
    /// - Throws: ``DeliveryError`` when the key is not an unencrypted P-256 PKCS#8 key, or an id
    ///   is not Apple's form (10 characters from A–Z and 0–9).
    public init(authKeyPEM: [UInt8], keyID: String, teamID: String, now: (@Sendable () -> Int)? = nil) throws {
        for (name, value) in [("key id", keyID), ("team id", teamID)] where !Self.isAppleID(value) {
            throw DeliveryError(
                "the \(name) must be 10 characters from A-Z and 0-9, as Apple issues it, not \(JSONWriter.string(.string(String(value.prefix(40)))))"
            )
        }
        do {
            signingKey = try P256.SigningKey(pkcs8PEM: authKeyPEM)
        } catch {
            throw DeliveryError("the APNs auth key is not an unencrypted P-256 PKCS#8 (.p8) key")
        }
        self.keyID = keyID
        self.teamID = teamID
        self.now = now ?? { Int(time(nil)) }
    }

    /// As ``init(authKeyPEM:keyID:teamID:now:)``, then zeroes `authKeyPEM`, whether or not the
    /// key was accepted: the `.p8` bytes are not kept in the caller's memory after use.
    public convenience init(
        wipingAuthKeyPEM authKeyPEM: inout [UInt8], keyID: String, teamID: String, now: (@Sendable () -> Int)? = nil
    ) throws {
        defer { SecureMemory.wipe(&authKeyPEM) }
        try self.init(authKeyPEM: authKeyPEM, keyID: keyID, teamID: teamID, now: now)
    }

    /// True for an id as Apple issues key ids and team ids: 10 characters from A–Z and 0–9.
    static func isAppleID(_ id: String) -> Bool {
        id.utf8.count == 10
            && id.utf8.allSatisfy {
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
            }
    }

    /// The token to send now: the current one while it is younger than ``maximumAge``.
    public func token() throws -> String {
        try queue.sync {
            if let current, now() - current.issuedAt < Self.maximumAge { return current.token }
            return try mint()
        }
    }

    /// Replaces `rejected` after APNs answered `ExpiredProviderToken`; when another request has
    /// already replaced it, returns that replacement rather than minting again.
    public func replace(rejected: String) throws -> String {
        try queue.sync {
            if let current, current.token != rejected { return current.token }
            return try mint()
        }
    }

    /// The least time between two tokens made after refusals: APNs answers
    /// `TooManyProviderTokenUpdates` to a provider that makes them more often than every 20 minutes.
    public static let minimumRenewalInterval = 20 * 60

    /// After APNs refused the token (`InvalidProviderToken`): makes a fresh one for the next
    /// request when the one in use is at least ``minimumRenewalInterval`` old; true when it did.
    /// A fresh `iat` is all a new token can change, so this helps a refusal that time can mend
    /// (a clock that was wrong, a key Apple had not yet activated), not a revoked key.
    @discardableResult
    public func renewAfterRefusal() throws -> Bool {
        try queue.sync {
            guard let current, now() - current.issuedAt >= Self.minimumRenewalInterval else { return false }
            _ = try mint()
            return true
        }
    }

    /// How many tokens were minted so far.
    public var issuedCount: Int { queue.sync { issued } }

    /// When the token in use was made (UNIX seconds), if one was made yet.
    public var currentIssuedAt: Int? { queue.sync { current?.issuedAt } }

    private func mint() throws -> String {
        let issuedAt = now()
        let text = try ES256JWT.sign(
            header: JSONObject([("alg", .string("ES256")), ("kid", .string(keyID))]),
            claims: JSONObject([("iss", .string(teamID)), ("iat", .number(JSONNumber(issuedAt)))]), with: signingKey)
        current = (text, issuedAt)
        issued += 1
        return text
    }
}
