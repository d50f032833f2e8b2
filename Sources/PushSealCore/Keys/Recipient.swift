/// Whom an envelope is sealed for: a device public key (HPKE suites) or a shared secret (suite 0x03).
public enum Recipient: Sendable, CustomStringConvertible {
    /// A device's public key: suite 0x01 or 0x02.
    case publicKey(PublicKey)
    /// A secret shared with the device: suite 0x03.
    case sharedKey(PrivateKey)

    /// Reads a recipient JWK: `oct` is a shared key, `OKP` and `EC` are public keys (a private
    /// JWK is accepted, and only its public half is used).
    public init(jwk: JSONObject) throws {
        let reader = JWKReader(object: jwk)
        if try reader.suite() == .xChaCha {
            self = .sharedKey(try PrivateKey(jwk: jwk))
        } else {
            self = .publicKey(try PublicKey(jwk: jwk))
        }
    }

    /// Reads a recipient JWK from its JSON text.
    public init(jwk bytes: some Collection<UInt8>) throws {
        try self.init(jwk: JWKReader(bytes: bytes).object)
    }

    /// The recipient's key id, written into the envelope header.
    public var kid: String {
        switch self {
        case .publicKey(let key): key.kid
        case .sharedKey(let key): key.kid
        }
    }

    /// The suite the recipient's key fixes.
    public var suite: EnvelopeSuite {
        switch self {
        case .publicKey(let key): key.suite
        case .sharedKey(let key): key.suite
        }
    }

    /// A readable form that never shows key material.
    public var description: String { "Recipient(kid: \(kid), suite: \(suite.name))" }
}
