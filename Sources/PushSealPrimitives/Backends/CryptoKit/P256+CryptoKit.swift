#if PUSHSEAL_CRYPTOKIT
    #if canImport(CryptoKit)
        import CryptoKit
    #else
        import CryptoKitStandIn
    #endif

    /// NIST P-256 key agreement (ECDH) from CryptoKit's `P256.KeyAgreement`.
    ///
    /// Public keys travel as the 65-byte uncompressed SEC1 point `04 || x || y` (CryptoKit's
    /// `x963Representation`); compressed and infinity encodings are refused, and CryptoKit checks
    /// that every imported point lies on the curve.
    package enum P256 {
        /// The length of a private scalar, of a coordinate and of the ECDH shared secret.
        package static let scalarByteCount = 32
        /// The length of an uncompressed public point.
        package static let pointByteCount = 65

        /// A validated public key.
        package struct PublicKey: Sendable {
            /// `04 || x || y`.
            package let x963Representation: [UInt8]
            /// CryptoKit's key.
            let key: Kit.P256.KeyAgreement.PublicKey

            /// Imports an uncompressed point, refusing any point that is not on P-256.
            package init(x963Representation bytes: [UInt8]) throws {
                guard bytes.count == pointByteCount, bytes.first == 0x04 else {
                    throw CryptoFailure.invalidKey("a P-256 public key is a 65-byte uncompressed point")
                }
                do {
                    key = try Kit.P256.KeyAgreement.PublicKey(x963Representation: bytes)
                } catch {
                    throw CryptoFailure.invalidKey("the point is not on P-256")
                }
                x963Representation = bytes
            }
        }

        /// A private key and its public key.
        package struct PrivateKey: Sendable {
            /// The 32-byte big-endian scalar, leading zeros kept (a JWK's `d`).
            package let rawRepresentation: SecretBytes
            /// The matching public key.
            package let publicKey: PublicKey
            private let key: Kit.P256.KeyAgreement.PrivateKey

            /// A fresh key: 32 random bytes, drawn again in the rare case (about 2⁻³²) that they
            /// are not a scalar in [1, n).
            package init() throws {
                while true {
                    if let key = try? PrivateKey(rawRepresentation: SecretBytes(randomCount: scalarByteCount)) {
                        self = key
                        return
                    }
                }
            }

            /// Imports a scalar, which must satisfy 0 < d < n, and computes its public key.
            package init(rawRepresentation: SecretBytes) throws {
                guard rawRepresentation.count == scalarByteCount else {
                    throw CryptoFailure.invalidKey("a P-256 private key has 32 bytes, not \(rawRepresentation.count)")
                }
                do {
                    key = try rawRepresentation.withUnsafeBytes {
                        try Kit.P256.KeyAgreement.PrivateKey(rawRepresentation: $0)
                    }
                } catch {
                    throw CryptoFailure.invalidKey("a P-256 private key must be a scalar in [1, n)")
                }
                self.rawRepresentation = rawRepresentation
                self.publicKey = try PublicKey(x963Representation: Array(key.publicKey.x963Representation))
            }

            /// The ECDH shared secret with `peer`: the 32-byte x-coordinate of d·Q.
            package func sharedSecret(with peer: PublicKey) throws -> SecretBytes {
                do {
                    return try key.sharedSecretFromKeyAgreement(with: peer.key).withUnsafeBytes {
                        SecretBytes(copying: $0)
                    }
                } catch {
                    throw CryptoFailure.authenticationFailed
                }
            }
        }
    }

    extension P256 {
        /// An ECDSA P-256 / SHA-256 signing key (JWS `ES256`), as APNs token authentication uses:
        /// read from the PKCS#8 PEM of an `AuthKey_XXXXXXXXXX.p8` file.
        package struct SigningKey: Sendable {
            private let key: Kit.P256.Signing.PrivateKey

            /// Reads an unencrypted PKCS#8 PEM private key, which must be on P-256.
            /// - Throws: ``CryptoFailure/invalidKey(_:)`` for anything else.
            package init(pkcs8PEM pem: [UInt8]) throws {
                // PEM is ASCII. `String(validating:as:)` would say the same, but it is Swift 6.0
                // standard library API, which Apple platforms carry only from iOS 18 and macOS 15.
                guard pem.allSatisfy({ $0 < 0x80 }),
                    let key = try? Kit.P256.Signing.PrivateKey(pemRepresentation: String(decoding: pem, as: UTF8.self))
                else {
                    throw CryptoFailure.invalidKey("not an unencrypted P-256 PKCS#8 PEM private key")
                }
                self.key = key
            }

            /// Imports a private scalar (a JWK's `d`), which must satisfy 0 < d < n.
            /// - Throws: ``CryptoFailure/invalidKey(_:)`` for a scalar of another length or out of range.
            package init(rawRepresentation: SecretBytes) throws {
                guard rawRepresentation.count == scalarByteCount,
                    let key = try? rawRepresentation.withUnsafeBytes({
                        try Kit.P256.Signing.PrivateKey(rawRepresentation: $0)
                    })
                else { throw CryptoFailure.invalidKey("not a P-256 private scalar in [1, n)") }
                self.key = key
            }

            /// The uncompressed public point.
            package var publicKey: [UInt8] { Array(key.publicKey.x963Representation) }

            /// The ES256 signature of `message`: the 64-byte `r || s` that JWS requires (RFC 7518 §3.4).
            package func signature(for message: [UInt8]) throws -> [UInt8] {
                do {
                    return Array(try key.signature(for: message).rawRepresentation)
                } catch {
                    throw CryptoFailure.library("ES256 signing")
                }
            }
        }
    }

    extension P256 {
        /// An ECDSA P-256 / SHA-256 public key (JWS `ES256`), from CryptoKit's `P256.Signing`.
        package struct VerifyingKey: Sendable {
            private let key: Kit.P256.Signing.PublicKey

            /// Imports an uncompressed point, refusing any point that is not on P-256.
            package init(x963Representation bytes: [UInt8]) throws {
                guard bytes.count == pointByteCount, bytes.first == 0x04,
                    let key = try? Kit.P256.Signing.PublicKey(x963Representation: bytes)
                else { throw CryptoFailure.invalidKey("the point is not on P-256") }
                self.key = key
            }

            /// True when `signature` is a valid ES256 signature of `message`: exactly 64 bytes,
            /// `r || s` (RFC 7518 §3.4), verifying over SHA-256(`message`).
            package func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
                guard let signature = try? Kit.P256.Signing.ECDSASignature(rawRepresentation: signature) else {
                    return false
                }
                return key.isValidSignature(signature, for: message)
            }
        }
    }
#endif
