internal import CSodium
public import Foundation

/// Curve25519, as CryptoKit's namespace of that name: X25519 key agreement, on libsodium.
public enum Curve25519 {
    /// X25519 (RFC 7748) key agreement.
    public enum KeyAgreement {
        /// A 32-byte public key.
        public struct PublicKey: Sendable {
            /// The key's 32 bytes.
            public let rawRepresentation: Data

            /// The key `rawRepresentation`; any 32 bytes are accepted, as CryptoKit does.
            /// - Throws: `CryptoKitError.incorrectKeySize` for any other length.
            public init<D: ContiguousBytes>(rawRepresentation: D) throws {
                let bytes = rawRepresentation.withUnsafeBytes { Data($0) }
                guard bytes.count == 32 else { throw CryptoKitError.incorrectKeySize }
                self.rawRepresentation = bytes
            }
        }

        /// A private key.
        public struct PrivateKey: Sendable {
            private let scalar: SecureBytes
            /// The matching public key.
            public let publicKey: PublicKey

            /// A fresh random key.
            public init() {
                Sodium.ready()
                let random = SecureBytes(count: 32) { randombytes_buf($0.mutableBytePointer, 32) }
                // swift-format-ignore: NeverUseForceTry
                try! self.init(scalar: random)
            }

            /// The key whose scalar is `rawRepresentation`.
            /// - Throws: `CryptoKitError.incorrectKeySize` unless it has 32 bytes.
            public init<D: ContiguousBytes>(rawRepresentation: D) throws {
                try self.init(scalar: rawRepresentation.withUnsafeBytes { SecureBytes(copying: $0) })
            }

            private init(scalar: SecureBytes) throws {
                guard scalar.count == 32 else { throw CryptoKitError.incorrectKeySize }
                Sodium.ready()
                var point = [UInt8](repeating: 0, count: 32)
                let status = scalar.withUnsafeBytes {
                    crypto_scalarmult_base(&point, $0.bytePointer)
                }
                guard status == 0 else { throw CryptoKitError.underlyingCoreCryptoError(error: status) }
                self.scalar = scalar
                self.publicKey = try PublicKey(rawRepresentation: point)
            }

            /// The key's 32-byte scalar.
            public var rawRepresentation: Data { scalar.withUnsafeBytes { Data($0) } }

            /// X25519(scalar, peer).
            ///
            /// As CryptoKit does, the all-zero result of a low-order peer key is returned, not
            /// refused: libsodium refuses it, so the stand-in hands back the zeros such a point
            /// always yields, and the caller's own check is what must catch it (RFC 9180 §7.1.4).
            public func sharedSecretFromKeyAgreement(with publicKeyShare: PublicKey) throws -> SharedSecret {
                Sodium.ready()
                let peer = Array(publicKeyShare.rawRepresentation)
                let secret = SecureBytes(count: 32) { out in
                    let target = out.mutableBytePointer
                    let status = scalar.withUnsafeBytes {
                        crypto_scalarmult(target, $0.bytePointer, peer)
                    }
                    if status != 0 { out.initializeMemory(as: UInt8.self, repeating: 0) }
                }
                return SharedSecret(storage: secret)
            }
        }
    }
}
