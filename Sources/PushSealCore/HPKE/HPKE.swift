package import PushSealPrimitives

/// Hybrid Public Key Encryption (RFC 9180), single-shot, base and auth modes, for the two
/// cipher suites PushSeal uses (and AES-128-GCM, so that all of RFC 9180's vectors run).
///
/// Only the composition lives here; every primitive comes from ``PushSealPrimitives``.
package enum HPKE {
    /// The RFC 9180 identifiers of one cipher suite. The KDF is always HKDF-SHA256 (0x0001).
    package struct CipherSuite: Hashable, Sendable {
        /// The key encapsulation mechanism.
        package let kem: KEM
        /// The AEAD.
        package let aead: AEAD

        /// DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20-Poly1305: envelope suite 0x01.
        package static let x25519ChaChaPoly = CipherSuite(kem: .x25519, aead: .chaCha20Poly1305)
        /// DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-256-GCM: envelope suite 0x02.
        package static let p256AESGCM256 = CipherSuite(kem: .p256, aead: .aes256GCM)

        /// A suite from its RFC 9180 identifiers, if supported.
        package init?(kemID: UInt16, kdfID: UInt16, aeadID: UInt16) {
            guard kdfID == 0x0001, let kem = KEM(id: kemID) else { return nil }
            switch aeadID {
            case 0x0001: aead = .aes128GCM
            case 0x0002: aead = .aes256GCM
            case 0x0003: aead = .chaCha20Poly1305
            default: return nil
            }
            self.kem = kem
        }

        private init(kem: KEM, aead: AEAD) {
            self.kem = kem
            self.aead = aead
        }

        var aeadID: UInt16 {
            switch aead {
            case .aes128GCM: 0x0001
            case .aes256GCM: 0x0002
            case .chaCha20Poly1305, .xChaCha20Poly1305: 0x0003
            }
        }

        /// `"HPKE" || I2OSP(kem_id, 2) || I2OSP(kdf_id, 2) || I2OSP(aead_id, 2)`.
        var identifier: [UInt8] {
            switch (kem, aead) {
            case (.x25519, .chaCha20Poly1305): Self.x25519ChaChaPolyIdentifier
            case (.p256, .aes256GCM): Self.p256AESGCM256Identifier
            default: Self.identifier(kem: kem, aeadID: aeadID)
            }
        }

        private static let x25519ChaChaPolyIdentifier = identifier(kem: .x25519, aeadID: 0x0003)
        private static let p256AESGCM256Identifier = identifier(kem: .p256, aeadID: 0x0002)

        private static func identifier(kem: KEM, aeadID: UInt16) -> [UInt8] {
            Array("HPKE".utf8) + kem.id.bigEndianBytes + UInt16(0x0001).bigEndianBytes + aeadID.bigEndianBytes
        }
    }

    /// A Diffie-Hellman KEM over HKDF-SHA256.
    package enum KEM: Hashable, Sendable {
        /// DHKEM(X25519, HKDF-SHA256), 0x0020.
        case x25519
        /// DHKEM(P-256, HKDF-SHA256), 0x0010.
        case p256

        init?(id: UInt16) {
            switch id {
            case 0x0020: self = .x25519
            case 0x0010: self = .p256
            default: return nil
            }
        }

        /// The RFC 9180 identifier.
        package var id: UInt16 { self == .x25519 ? 0x0020 : 0x0010 }

        /// The length of a serialised public key, which is also `enc`'s length.
        package var publicKeyByteCount: Int { self == .x25519 ? 32 : 65 }

        /// `"KEM" || I2OSP(kem_id, 2)`.
        var identifier: [UInt8] { self == .x25519 ? Self.x25519Identifier : Self.p256Identifier }

        private static let x25519Identifier = Array("KEM".utf8) + UInt16(0x0020).bigEndianBytes
        private static let p256Identifier = Array("KEM".utf8) + UInt16(0x0010).bigEndianBytes
    }

    /// The modes PushSeal uses; PSK modes are not.
    package enum Mode: UInt8, Sendable {
        /// 0x00.
        case base = 0x00
        /// 0x02: the sender authenticates with a static key.
        case auth = 0x02
    }

    /// A KEM private key.
    package enum PrivateKey: Sendable {
        /// An X25519 key.
        case x25519(X25519.PrivateKey)
        /// A P-256 key.
        case p256(P256.PrivateKey)

        /// The matching public key.
        package var publicKey: PublicKey {
            switch self {
            case .x25519(let key): .x25519(key.publicKey)
            case .p256(let key): .p256(key.publicKey)
            }
        }

        /// A fresh key of `kem`.
        package static func generate(_ kem: KEM) throws -> PrivateKey {
            switch kem {
            case .x25519: .x25519(X25519.PrivateKey())
            case .p256: .p256(try P256.PrivateKey())
            }
        }

        /// DH(self, peer); a KEM mismatch or a forbidden result is ``CryptoFailure/authenticationFailed``.
        func agree(with peer: PublicKey) throws -> SecretBytes {
            switch (self, peer) {
            case (.x25519(let key), .x25519(let peer)): try key.sharedSecret(with: peer)
            case (.p256(let key), .p256(let peer)): try key.sharedSecret(with: peer)
            default: throw CryptoFailure.authenticationFailed
            }
        }
    }

    /// A KEM public key.
    package enum PublicKey: Sendable {
        /// An X25519 key.
        case x25519(X25519.PublicKey)
        /// A P-256 key.
        case p256(P256.PublicKey)

        /// `SerializePublicKey`: 32 raw bytes, or the 65-byte uncompressed point.
        package var serialized: [UInt8] {
            switch self {
            case .x25519(let key): key.rawRepresentation
            case .p256(let key): key.x963Representation
            }
        }

        /// `DeserializePublicKey`, validating the point.
        package init(kem: KEM, serialized bytes: [UInt8]) throws {
            switch kem {
            case .x25519: self = .x25519(try X25519.PublicKey(rawRepresentation: bytes))
            case .p256: self = .p256(try P256.PublicKey(x963Representation: bytes))
            }
        }
    }
}

extension UInt16 {
    /// `I2OSP(self, 2)`.
    var bigEndianBytes: [UInt8] { [UInt8(self >> 8), UInt8(self & 0xFF)] }
}
