public import PushSealCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One entry of the key store, as `keys list` prints it (never with key material).
public struct StoredKey: Sendable {
    /// What the key is for.
    public enum Role: String, Sendable {
        /// A device key: opens envelopes addressed to its kid.
        case device
        /// A trusted sender's public key.
        case sender
        /// A Web Push receiver: a P-256 private key and an authentication secret that open the
        /// Web Push messages a relay forwards (webpush-v1.md, "Forwarded to an iPhone").
        case webPush = "webpush"

        /// The role spelled exactly `name` (byte for byte, see `ExactText`).
        public init?(exactly name: String) {
            guard let role = [Role.device, .sender, .webPush].first(where: { $0.rawValue.isExactly(name) }) else {
                return nil
            }
            self = role
        }
    }

    /// The key id.
    public let kid: String
    /// The suite the key belongs to.
    public let suite: EnvelopeSuite
    /// Device or sender.
    public let role: Role
    /// True for the device key new pushes should be sealed for.
    public var current: Bool
    /// When the key entered the store, ISO 8601 UTC.
    public let created: String
    /// The JWK as stored (private for device keys and Web Push receivers, public for senders).
    let jwk: JSONObject
    /// A Web Push receiver's authentication secret, base64url; nil for the other roles.
    let auth: String?

    init(
        kid: String, suite: EnvelopeSuite, role: Role, current: Bool, created: String, jwk: JSONObject,
        auth: String? = nil
    ) {
        self.kid = kid
        self.suite = suite
        self.role = role
        self.current = current
        self.created = created
        self.jwk = jwk
        self.auth = auth
    }

    /// The listing object: kid, suite, role, current, created.
    public var listing: JSONObject {
        JSONObject([
            ("kid", .string(kid)), ("suite", .string(suite.name)), ("role", .string(role.rawValue)),
            ("current", .bool(current)), ("created", .string(created)),
        ])
    }

    /// The stored record: the listing plus the JWK (and a Web Push receiver's `auth`).
    var record: JSONObject {
        var object = listing
        object["jwk"] = .object(jwk)
        if let auth { object["auth"] = .string(auth) }
        return object
    }

    /// Reads a stored record, naming what is wrong with it.
    init(record: JSONObject, index: Int) throws {
        func field(_ name: String) throws -> String {
            guard let value = record[name]?.stringValue else {
                throw PushSealError(.keyStoreUnavailable, "key \(index) in the store has no \"\(name)\" string")
            }
            return value
        }
        guard let suite = EnvelopeSuite(name: try field("suite")),
            let role = Role(exactly: try field("role")),
            case .bool(let current)? = record["current"],
            let jwk = record["jwk"]?.objectValue
        else {
            throw PushSealError(.keyStoreUnavailable, "key \(index) in the store is malformed")
        }
        let auth = role == .webPush ? try field("auth") : nil
        self.init(
            kid: try field("kid"), suite: suite, role: role, current: current, created: try field("created"), jwk: jwk,
            auth: auth)
    }

    /// Now, as `YYYY-MM-DDTHH:MM:SSZ`.
    static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }
}
