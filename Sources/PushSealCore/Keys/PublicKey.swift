internal import PushSealPrimitives

/// The public half of a device or sender key pair (suites 0x01 and 0x02), with its key id.
public struct PublicKey: Sendable, CustomStringConvertible {
    /// The key id.
    public let kid: String
    /// The suite the key type fixes.
    public let suite: EnvelopeSuite
    let material: HPKE.PublicKey

    init(kid: String, suite: EnvelopeSuite, material: HPKE.PublicKey) {
        self.kid = kid
        self.suite = suite
        self.material = material
    }

    /// Imports a public JWK (a private one is accepted; only its public members are read).
    /// Without a `kid`, the default kid of envelope-v1.md is given.
    /// - Throws: ``PushSealError/Code/invalidKey``, naming the member at fault; for an `oct` key,
    ///   which has no public half.
    public init(jwk: JSONObject) throws {
        let reader = JWKReader(object: jwk)
        let suite = try reader.suite()
        guard suite.isHPKE else {
            throw PushSealError(.invalidKey, "a shared (oct) key has no public half")
        }
        let material = try reader.publicKey(suite)
        self.init(
            kid: try reader.kid() ?? KeyID.derived(fromPublicKey: material.serialized), suite: suite,
            material: material)
    }

    /// Imports a public JWK from its JSON text.
    public init(jwk bytes: some Collection<UInt8>) throws {
        try self.init(jwk: JWKReader(bytes: bytes).object)
    }

    /// The raw public key: 32 bytes (X25519) or the 65-byte uncompressed point (P-256).
    public var rawRepresentation: [UInt8] { material.serialized }

    /// The public JWK.
    public var jwk: JSONObject {
        var object = JSONObject()
        let raw = material.serialized
        if suite == .x25519 {
            object["kty"] = .string("OKP")
            object["crv"] = .string("X25519")
            object.appendBase64URL("x", raw)
        } else {
            object["kty"] = .string("EC")
            object["crv"] = .string("P-256")
            object.appendBase64URL("x", Array(raw[1...32]))
            object.appendBase64URL("y", Array(raw[33...64]))
        }
        object["kid"] = .string(kid)
        return object
    }

    /// A readable form that never shows key material.
    public var description: String { "PublicKey(kid: \(kid), suite: \(suite.name))" }
}
