#if PUSHSEAL_CRYPTOKIT
    #if canImport(CryptoKit)
        import CryptoKit
    #else
        import CryptoKitStandIn
    #endif

    /// X25519's private key from CryptoKit's `Curve25519.KeyAgreement`.
    extension X25519 {
        /// A private key and its public key.
        package struct PrivateKey: Sendable {
            /// The 32-byte scalar, as in a JWK's `d`.
            package let rawRepresentation: SecretBytes
            /// The matching public key.
            package let publicKey: PublicKey
            private let key: Kit.Curve25519.KeyAgreement.PrivateKey

            /// A fresh random key: any 32 random bytes are a valid X25519 private key.
            package init() {
                // swift-format-ignore: NeverUseForceTry
                try! self.init(rawRepresentation: SecretBytes(randomCount: keyByteCount))
            }

            /// Imports a 32-byte scalar and computes its public key.
            package init(rawRepresentation: SecretBytes) throws {
                guard rawRepresentation.count == keyByteCount else {
                    throw CryptoFailure.invalidKey(
                        "an X25519 private key has 32 bytes, not \(rawRepresentation.count)")
                }
                do {
                    key = try rawRepresentation.withUnsafeBytes {
                        try Kit.Curve25519.KeyAgreement.PrivateKey(rawRepresentation: $0)
                    }
                } catch {
                    throw CryptoFailure.invalidKey("X25519 private key gives no public key")
                }
                self.rawRepresentation = rawRepresentation
                self.publicKey = PublicKey(derived: Array(key.publicKey.rawRepresentation))
            }

            /// The Diffie-Hellman shared secret with `peer`.
            /// - Throws: ``CryptoFailure/authenticationFailed`` when the result is all zeros (a
            ///   low-order point), as RFC 9180 §7.1.4 requires. CryptoKit does not check this
            ///   itself, so it is checked here, in constant time.
            package func sharedSecret(with peer: PublicKey) throws -> SecretBytes {
                let secret: SecretBytes
                do {
                    let peerKey = try Kit.Curve25519.KeyAgreement.PublicKey(rawRepresentation: peer.rawRepresentation)
                    let shared = try key.sharedSecretFromKeyAgreement(with: peerKey)
                    secret = shared.withUnsafeBytes { SecretBytes(copying: $0) }
                } catch {
                    throw CryptoFailure.authenticationFailed
                }
                let zeros = [UInt8](repeating: 0, count: keyByteCount)
                guard !ConstantTime.equals(secret, zeros) else { throw CryptoFailure.authenticationFailed }
                return secret
            }
        }
    }
#endif
