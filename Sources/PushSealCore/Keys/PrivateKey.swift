internal import PushSealPrimitives

/// A key that can open envelopes: a device or sender key pair (suites 0x01, 0x02) or a shared
/// secret (suite 0x03), with its key id.
///
/// Key bytes live in wiped storage; `description` shows only the kid and suite.
public struct PrivateKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The key id.
    public let kid: String
    /// The suite the key type fixes.
    public let suite: EnvelopeSuite
    let material: Material

    enum Material: Sendable {
        case pair(HPKE.PrivateKey)
        case shared(SecretBytes)
    }

    /// A fresh key of `suite`. Without `kid`, the default kid of envelope-v1.md is given.
    public static func generate(suite: EnvelopeSuite, kid: String? = nil) throws -> PrivateKey {
        if let kid { try KeyID.validate(kid) }
        switch suite {
        case .x25519, .p256:
            let pair = try HPKE.PrivateKey.generate(suite == .x25519 ? .x25519 : .p256)
            return PrivateKey(
                kid: kid ?? KeyID.derived(fromPublicKey: pair.publicKey.serialized), suite: suite, material: .pair(pair)
            )
        default:
            return PrivateKey(
                kid: kid ?? KeyID.random(), suite: .xChaCha, material: .shared(SecretBytes(randomCount: 32)))
        }
    }

    /// Imports a private JWK. When `x` (and `y`) are present they must match `d`. Without a
    /// `kid`, the default kid of envelope-v1.md is given.
    /// - Throws: ``PushSealError/Code/invalidKey``, naming the member at fault.
    public init(jwk: JSONObject) throws {
        let reader = JWKReader(object: jwk)
        let suite = try reader.suite()
        let material: Material
        switch suite {
        case .x25519:
            guard let d = try reader.secretBytes("d", count: 32) else { throw Self.missingPrivatePart("d") }
            let key = try X25519.PrivateKey(rawRepresentation: d)
            material = .pair(.x25519(key))
        case .p256:
            guard let d = try reader.secretBytes("d", count: 32) else { throw Self.missingPrivatePart("d") }
            do {
                material = .pair(.p256(try P256.PrivateKey(rawRepresentation: d)))
            } catch {
                throw PushSealError(.invalidKey, "JWK \"d\" is not a valid P-256 scalar")
            }
        default:
            guard let k = try reader.secretBytes("k", count: 32) else { throw Self.missingPrivatePart("k") }
            material = .shared(k)
        }
        if case .pair(let pair) = material, jwk["x"] != nil {
            let stated = try reader.publicKey(suite)
            guard ConstantTime.equals(stated.serialized, pair.publicKey.serialized) else {
                throw PushSealError(.invalidKey, "JWK \"x\"/\"y\" do not match the private key \"d\"")
            }
        }
        let kid: String
        if let given = try reader.kid() {
            kid = given
        } else if case .pair(let pair) = material {
            kid = KeyID.derived(fromPublicKey: pair.publicKey.serialized)
        } else {
            kid = KeyID.random()
        }
        self.init(kid: kid, suite: suite, material: material)
    }

    /// Imports a private JWK from its JSON text.
    public init(jwk bytes: some Collection<UInt8>) throws {
        try self.init(jwk: JWKReader(bytes: bytes).object)
    }

    init(kid: String, suite: EnvelopeSuite, material: Material) {
        self.kid = kid
        self.suite = suite
        self.material = material
    }

    /// The same key under another kid.
    public func withKid(_ kid: String) throws -> PrivateKey {
        try KeyID.validate(kid)
        return PrivateKey(kid: kid, suite: suite, material: material)
    }

    /// The public half, or nil for a shared secret.
    public var publicKey: PublicKey? {
        guard case .pair(let pair) = material else { return nil }
        return PublicKey(kid: kid, suite: suite, material: pair.publicKey)
    }

    /// The private JWK, key material included: only for commands that exist to output a key.
    public var privateJWK: JSONObject {
        switch material {
        case .pair(let pair):
            var object = PublicKey(kid: kid, suite: suite, material: pair.publicKey).jwk
            object["kid"] = nil
            switch pair {
            case .x25519(let key): object.appendSecret("d", key.rawRepresentation)
            case .p256(let key): object.appendSecret("d", key.rawRepresentation)
            }
            object["kid"] = .string(kid)
            return object
        case .shared(let secret):
            var object = JSONObject()
            object["kty"] = .string("oct")
            object.appendSecret("k", secret)
            object["kid"] = .string(kid)
            return object
        }
    }

    /// True when `other` holds the same key material (compared in constant time).
    public func hasSameMaterial(as other: PrivateKey) -> Bool {
        switch (material, other.material) {
        case (.shared(let left), .shared(let right)): left == right
        case (.pair(.x25519(let left)), .pair(.x25519(let right))): left.rawRepresentation == right.rawRepresentation
        case (.pair(.p256(let left)), .pair(.p256(let right))): left.rawRepresentation == right.rawRepresentation
        default: false
        }
    }

    /// A readable form that never shows key material.
    public var description: String { "PrivateKey(kid: \(kid), suite: \(suite.name), redacted)" }
    /// The same as description: redacted.
    public var debugDescription: String { description }

    private static func missingPrivatePart(_ member: String) -> PushSealError {
        PushSealError(.invalidKey, "JWK member \"\(member)\" is missing: this is not a private key")
    }
}
