internal import PushSealPrimitives

/// Key ids (`kid`): 1 to 64 characters from `A-Z a-z 0-9 . _ -`.
public enum KeyID {
    /// The longest key id.
    public static let maximumLength = 64

    /// True when `kid` is a valid key id.
    public static func isValid(_ kid: String) -> Bool {
        let bytes = Array(kid.utf8)
        return !bytes.isEmpty && bytes.count <= maximumLength && bytes.allSatisfy(isAllowed)
    }

    /// Throws ``PushSealError/Code/invalidKey`` unless `kid` is valid, naming `member` in the message.
    static func validate(_ kid: String, member: String = "kid") throws {
        guard isValid(kid) else {
            throw PushSealError(
                .invalidKey, "\"\(member)\" must be 1 to 64 characters from A-Z a-z 0-9 . _ - (got \(kid.utf8.count))")
        }
    }

    /// The default kid of a public key: base64url of the first 8 bytes of SHA-256 over the raw
    /// public key (32 bytes for X25519, the 65-byte point for P-256), 11 characters.
    public static func derived(fromPublicKey raw: [UInt8]) -> String {
        Base64URL.encode(Array(SHA256.hash(raw).prefix(8)))
    }

    /// A random kid for a shared secret: 8 random bytes, base64url.
    public static func random() -> String {
        Base64URL.encode(SecureRandom.bytes(8))
    }

    static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }
}
