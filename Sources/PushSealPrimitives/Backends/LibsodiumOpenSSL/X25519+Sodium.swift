#if !PUSHSEAL_CRYPTOKIT
    internal import CSodium

    /// X25519's private key through libsodium's `crypto_scalarmult`.
    extension X25519 {
        /// A private key and its public key.
        package struct PrivateKey: Sendable {
            /// The 32-byte scalar, as in a JWK's `d`.
            package let rawRepresentation: SecretBytes
            /// The matching public key.
            package let publicKey: PublicKey

            /// A fresh random key.
            package init() {
                // Any 32 random bytes are a valid X25519 private key: clamping happens inside scalarmult,
                // and a clamped scalar never maps the base point to the identity.
                let scalar = SecretBytes(randomCount: keyByteCount)
                self.rawRepresentation = scalar
                self.publicKey = PublicKey(derived: Self.publicBytes(for: scalar) ?? [])
            }

            /// Imports a 32-byte scalar and computes its public key.
            package init(rawRepresentation: SecretBytes) throws {
                guard rawRepresentation.count == keyByteCount else {
                    throw CryptoFailure.invalidKey("an X25519 private key has 32 bytes, not \(rawRepresentation.count)")
                }
                guard let publicBytes = Self.publicBytes(for: rawRepresentation) else {
                    throw CryptoFailure.invalidKey("X25519 private key gives no public key")
                }
                self.rawRepresentation = rawRepresentation
                self.publicKey = PublicKey(derived: publicBytes)
            }

            private static func publicBytes(for scalar: SecretBytes) -> [UInt8]? {
                Sodium.ensureInitialised()
                var publicBytes = [UInt8](repeating: 0, count: keyByteCount)
                let status = scalar.withBytePointer { crypto_scalarmult_base(&publicBytes, $0) }
                return status == 0 ? publicBytes : nil
            }

            /// The Diffie-Hellman shared secret with `peer`.
            /// - Throws: ``CryptoFailure/authenticationFailed`` when the result is all zeros (a low-order
            ///   point), as RFC 9180 §7.1.4 requires.
            package func sharedSecret(with peer: PublicKey) throws -> SecretBytes {
                Sodium.ensureInitialised()
                var status: Int32 = -1
                let shared = SecretBytes(count: keyByteCount) { out in
                    status = rawRepresentation.withBytePointer { scalar in
                        guard let target = out.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return -1 }
                        return crypto_scalarmult(target, scalar, peer.rawRepresentation)
                    }
                }
                guard status == 0 else { throw CryptoFailure.authenticationFailed }
                return shared
            }
        }
    }
#endif
