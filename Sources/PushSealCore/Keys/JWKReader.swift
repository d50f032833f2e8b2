internal import PushSealPrimitives

/// Reads the members of a JSON Web Key, each failure a ``PushSealError/Code/invalidKey`` error
/// that names the member. Never puts key bytes in a message.
struct JWKReader {
    let object: JSONObject

    /// Parses `bytes` as a JWK object.
    init(bytes: some Collection<UInt8>) throws {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw PushSealError(.invalidKey, "the key is not JSON: \(error)")
        }
        guard let object = value.objectValue else {
            throw PushSealError(.invalidKey, "a JWK must be a JSON object, not \(value.typeName)")
        }
        self.object = object
    }

    init(object: JSONObject) {
        self.object = object
    }

    /// The string member `name`, or nil when absent.
    func string(_ name: String) throws -> String? {
        guard let value = object[name] else { return nil }
        guard let string = value.stringValue else {
            throw PushSealError(.invalidKey, "JWK member \"\(name)\" must be a string, not \(value.typeName)")
        }
        return string
    }

    /// The string member `name`, which must be present.
    func requiredString(_ name: String) throws -> String {
        guard let string = try string(name) else {
            throw PushSealError(.invalidKey, "JWK member \"\(name)\" is missing")
        }
        return string
    }

    /// The base64url member `name` decoded, which must be `count` bytes.
    func publicBytes(_ name: String, count: Int) throws -> [UInt8] {
        let text = try requiredString(name)
        guard let bytes = Base64URL.decode(text) else {
            throw PushSealError(.invalidKey, "JWK member \"\(name)\" is not base64url without padding")
        }
        guard bytes.count == count else {
            throw PushSealError(.invalidKey, "JWK member \"\(name)\" must hold \(count) bytes, not \(bytes.count)")
        }
        return bytes
    }

    /// The secret base64url member `name` decoded into wiped storage, or nil when absent.
    func secretBytes(_ name: String, count: Int) throws -> SecretBytes? {
        guard let text = try string(name) else { return nil }
        guard let secret = Base64URL.decodeSecret(text) else {
            throw PushSealError(.invalidKey, "JWK member \"\(name)\" is not base64url without padding")
        }
        guard secret.count == count else {
            throw PushSealError(.invalidKey, "JWK member \"\(name)\" must hold \(count) bytes, not \(secret.count)")
        }
        return secret
    }

    /// The suite fixed by `kty` and `crv`.
    func suite() throws -> EnvelopeSuite {
        let keyType = try requiredString("kty")
        switch ExactText(keyType) {
        case "OKP":
            let curve = try requiredString("crv")
            guard curve.isExactly("X25519") else {
                throw PushSealError(.invalidKey, "an OKP key must have \"crv\": \"X25519\", not \"\(curve)\"")
            }
            return .x25519
        case "EC":
            let curve = try requiredString("crv")
            guard curve.isExactly("P-256") else {
                throw PushSealError(.invalidKey, "an EC key must have \"crv\": \"P-256\", not \"\(curve)\"")
            }
            return .p256
        case "oct":
            return .xChaCha
        default:
            throw PushSealError(.invalidKey, "JWK \"kty\" must be \"OKP\", \"EC\" or \"oct\", not \"\(keyType)\"")
        }
    }

    /// The public key in `x` (and `y`), for an HPKE suite; a low-order X25519 point is refused
    /// here, at import and at load, rather than later as a misleading `decryption-failed`.
    func publicKey(_ suite: EnvelopeSuite) throws -> HPKE.PublicKey {
        do {
            if suite == .x25519 {
                let key = try X25519.PublicKey(rawRepresentation: try publicBytes("x", count: 32))
                guard !key.hasSmallOrder else {
                    let name = ((try? kid()) ?? nil).map { "the key \"\($0)\"" } ?? "the key"
                    throw PushSealError(
                        .invalidKey,
                        "JWK \"x\" of \(name) is a low-order X25519 point: no agreement with it can succeed")
                }
                return .x25519(key)
            }
            let point = [0x04] + (try publicBytes("x", count: 32)) + (try publicBytes("y", count: 32))
            return .p256(try P256.PublicKey(x963Representation: point))
        } catch is CryptoFailure {
            throw PushSealError(.invalidKey, "JWK \"x\"/\"y\" is not a point on P-256")
        }
    }

    /// The kid, validated, or nil when absent.
    func kid() throws -> String? {
        guard let kid = try string("kid") else { return nil }
        try KeyID.validate(kid)
        return kid
    }
}

extension JSONObject {
    /// Adds a base64url member holding public bytes.
    mutating func appendBase64URL(_ name: String, _ bytes: [UInt8]) {
        self[name] = .string(Base64URL.encode(bytes))
    }

    /// Adds a base64url member holding key material, encoded in constant time.
    mutating func appendSecret(_ name: String, _ secret: SecretBytes) {
        self[name] = .string(Base64URL.encodeSecret(secret))
    }
}
