import Dispatch
internal import PushSealCore
internal import PushSealPrimitives
internal import PushSealURL

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Issues RFC 8292 (VAPID) authorizations, `vapid t=<JWT>, k=<public key>`, one token per push
/// service origin, reused until it nears its expiry, as provider tokens are for APNs.
///
/// The token is an ES256 JWT whose claims are `aud`, the push service's origin
/// (`https://host[:port]`), `exp`, ``lifetime`` (12 hours) from when it was made, inside RFC
/// 8292's 24 hours, and `sub`, the contact the push service may use (`mailto:` or `https:`). A
/// token is replaced once less than ``renewalMargin`` (1 hour) of it is left, so no request
/// leaves with a token about to expire. At most ``keptTokens`` origins' tokens are kept: past
/// that, the ones too near their expiry to be used are dropped, then (if still too many) all, so
/// that ever new origins cannot grow the process. Safe to use from any thread.
public final class VAPIDIssuer: @unchecked Sendable {
    /// How long a token is valid: 12 hours.
    public static let lifetime = 12 * 3600
    /// A token with less than this left is replaced: 1 hour.
    public static let renewalMargin = 3600
    /// The most origins whose tokens are kept.
    public static let keptTokens = 1_024

    private let key: VAPIDKey
    private let subject: String
    private let now: @Sendable () -> Int
    private let queue = DispatchQueue(label: "pushseal.vapid")
    private var tokens: [String: (token: String, expires: Int)] = [:]
    private var minted = 0

    /// An issuer signing with `key` for the contact `subject`.
    /// - Parameters:
    ///   - key: the application server's key.
    ///   - subject: a `mailto:` address or an `https:` URL (RFC 8292 §2.1).
    ///   - now: the clock, in UNIX seconds; nil reads the system clock (tests pass their own).
    /// - Throws: ``DeliveryError`` when `subject` is neither.
    public init(key: VAPIDKey, subject: String, now: (@Sendable () -> Int)? = nil) throws {
        let lowered = subject.lowercased()
        let isMail = lowered.hasPrefix("mailto:") && subject.utf8.count > 7 && subject.contains("@")
        let isWeb = lowered.hasPrefix("https:") && (try? HTTPSURL(subject)) != nil
        guard isMail || isWeb, subject.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw DeliveryError(
                "the VAPID subject must be a mailto: address or an https: URL, not \(JSONWriter.string(.string(String(subject.prefix(80)))))"
            )
        }
        self.key = key
        self.subject = subject
        self.now = now ?? { Int(time(nil)) }
    }

    /// The `Authorization` header's value for a request to `endpoint`.
    /// - Throws: ``DeliveryError`` when `endpoint` is not an https URL.
    public func authorization(for endpoint: String) throws -> String {
        let url: HTTPSURL
        do {
            url = try HTTPSURL(endpoint)
        } catch {
            throw DeliveryError("the push endpoint is not a usable https URL: \(error)")
        }
        let origin = "https://\(url.authority)"
        let token = try queue.sync { () throws -> String in
            let moment = now()
            if let current = tokens[origin], current.expires - moment > Self.renewalMargin { return current.token }
            let expires = moment + Self.lifetime
            let token = try mint(audience: origin, expires: expires)
            if tokens.count >= Self.keptTokens {
                tokens = tokens.filter { $0.value.expires - moment > Self.renewalMargin }
                if tokens.count >= Self.keptTokens { tokens = [:] }
            }
            tokens[origin] = (token, expires)
            minted += 1
            return token
        }
        return "vapid t=\(token), k=\(key.publicKey)"
    }

    /// The application server's public key, the 65-byte uncompressed P-256 point in base64url: a
    /// web page's `applicationServerKey`, and the `k` of every authorization.
    public var publicKey: String { key.publicKey }

    /// How many origins' tokens are kept now.
    public var keptTokenCount: Int { queue.sync { tokens.count } }

    /// How many tokens were made so far.
    public var mintedCount: Int { queue.sync { minted } }

    private func mint(audience: String, expires: Int) throws -> String {
        try ES256JWT.sign(
            header: JSONObject([("typ", .string("JWT")), ("alg", .string("ES256"))]),
            claims: JSONObject([
                ("aud", .string(audience)), ("exp", .number(JSONNumber(expires))), ("sub", .string(subject)),
            ]), with: key.signingKey)
    }
}
