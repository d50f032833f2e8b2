/// A suite of envelope v1: the byte in the header that fixes the key type and the cipher.
///
/// Modelled as a struct with static members rather than an enum, so that a later version can
/// add suites without breaking anyone's `switch`.
public struct EnvelopeSuite: Hashable, Sendable, CustomStringConvertible {
    /// The header byte.
    public let id: UInt8
    /// The suite's name in envelope-v1.md, e.g. `X25519-SHA256-ChaCha20Poly1305`.
    public let name: String
    /// The length of the header's `enc` field: encapsulated key or nonce.
    public let encByteCount: Int

    /// 0x01: HPKE with DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20-Poly1305.
    public static let x25519 = EnvelopeSuite(id: 0x01, name: "X25519-SHA256-ChaCha20Poly1305", encByteCount: 32)
    /// 0x02: HPKE with DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-256-GCM.
    public static let p256 = EnvelopeSuite(id: 0x02, name: "P256-SHA256-AES256GCM", encByteCount: 65)
    /// 0x03: XChaCha20-Poly1305 under a shared 32-byte key, with a random 24-byte nonce.
    public static let xChaCha = EnvelopeSuite(id: 0x03, name: "XChaCha20Poly1305", encByteCount: 24)

    /// Every suite of version 1.
    public static let all: [EnvelopeSuite] = [.x25519, .p256, .xChaCha]

    /// The suite whose name in envelope-v1.md is `name`, compared byte for byte.
    public init?(name: String) {
        guard let suite = Self.all.first(where: { $0.name.isExactly(name) }) else { return nil }
        self = suite
    }

    /// The suite with header byte `id`, if version 1 has one.
    public init?(id: UInt8) {
        guard let suite = Self.all.first(where: { $0.id == id }) else { return nil }
        self = suite
    }

    /// The suite for a CLI name: `x25519`, `p256` or `xchacha`.
    public init?(shortName: String) {
        switch ExactText(shortName) {
        case "x25519": self = .x25519
        case "p256": self = .p256
        case "xchacha": self = .xChaCha
        default: return nil
        }
    }

    private init(id: UInt8, name: String, encByteCount: Int) {
        self.id = id
        self.name = name
        self.encByteCount = encByteCount
    }

    /// The CLI name: `x25519`, `p256` or `xchacha`.
    public var shortName: String {
        switch id {
        case 0x01: "x25519"
        case 0x02: "p256"
        default: "xchacha"
        }
    }

    /// True for the HPKE suites, whose keys are pairs and which support auth mode.
    public var isHPKE: Bool { self != .xChaCha }

    /// A readable form that never shows key material.
    public var description: String { name }
}

/// The mode byte of the header: HPKE base or auth.
public struct EnvelopeMode: Hashable, Sendable, CustomStringConvertible {
    /// The header byte.
    public let id: UInt8

    /// 0x00: no sender authentication (and the only mode of suite 0x03).
    public static let base = EnvelopeMode(id: 0x00)
    /// 0x02: HPKE auth mode; the sender proves itself with a static key.
    public static let auth = EnvelopeMode(id: 0x02)

    private init(id: UInt8) { self.id = id }

    /// `base` or `auth`, as in CLI output.
    public var description: String { self == .auth ? "auth" : "base" }
}
