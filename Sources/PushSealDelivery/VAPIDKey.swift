internal import PushSealCore
internal import PushSealPrimitives

/// The application server's P-256 key of RFC 8292 (VAPID): it signs the token that identifies the
/// sender to a push service, and its public half is the `applicationServerKey` a web app passes
/// to `PushManager.subscribe()`.
///
/// Read from a private JWK (`pushseal keys generate --suite p256` makes one) or an unencrypted
/// PKCS#8 PEM file. The key bytes live in the crypto backend's wiped storage; `description`
/// shows only the public key.
public struct VAPIDKey: Sendable, CustomStringConvertible {
    let signingKey: P256.SigningKey

    /// The uncompressed public point in base64url: the `k` of the authorization, and the
    /// `applicationServerKey` of the web app.
    public let publicKey: String

    /// Reads a key file's bytes, a P-256 private JWK or a PKCS#8 PEM key, and zeroes `bytes`
    /// whether or not the key was accepted.
    /// - Throws: ``DeliveryError`` naming what is wrong, never showing key bytes.
    public init(wipingFileBytes bytes: inout [UInt8]) throws {
        defer { SecureMemory.wipe(&bytes) }
        let first = bytes.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        signingKey = first == UInt8(ascii: "{") ? try Self.jwkKey(bytes) : try Self.pemKey(bytes)
        publicKey = Base64URL.encode(signingKey.publicKey)
    }

    private static func pemKey(_ bytes: [UInt8]) throws -> P256.SigningKey {
        do {
            return try P256.SigningKey(pkcs8PEM: bytes)
        } catch {
            throw DeliveryError("the VAPID key is neither a P-256 private JWK nor an unencrypted P-256 PKCS#8 PEM key")
        }
    }

    private static func jwkKey(_ bytes: [UInt8]) throws -> P256.SigningKey {
        let key: PrivateKey
        do {
            key = try PrivateKey(jwk: bytes)
        } catch {
            throw DeliveryError("the VAPID key is not a usable JWK: \((error as? PushSealError)?.detail ?? "\(error)")")
        }
        guard key.suite == .p256 else {
            throw DeliveryError("the VAPID key must be on P-256 (ES256), not \(key.suite.name)")
        }
        guard let scalar = key.privateJWK["d"]?.stringValue.flatMap({ Base64URL.decodeSecret($0) }) else {
            throw DeliveryError("the VAPID key is a public JWK; signing needs its private member \"d\"")
        }
        do {
            return try P256.SigningKey(rawRepresentation: scalar)
        } catch {
            throw DeliveryError("the VAPID key's \"d\" is not a P-256 private scalar")
        }
    }

    /// A readable form that shows only the public key.
    public var description: String { "VAPIDKey(public: \(publicKey))" }
}
