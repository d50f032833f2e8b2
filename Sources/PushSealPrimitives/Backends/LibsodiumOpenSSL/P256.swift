#if !PUSHSEAL_CRYPTOKIT
    /// NIST P-256 key agreement (ECDH) on OpenSSL's P-256 group arithmetic (see ``Curve``).
    ///
    /// Public keys travel as the 65-byte uncompressed SEC1 point `04 || x || y` (CryptoKit's
    /// `x963Representation`); compressed and infinity encodings are refused, and every imported
    /// point is checked to lie on the curve before it is used.
    package enum P256 {
        /// The length of a private scalar, of a coordinate and of the ECDH shared secret.
        package static let scalarByteCount = 32
        /// The length of an uncompressed public point.
        package static let pointByteCount = 65

        /// A validated public key.
        package struct PublicKey: Sendable {
            /// `04 || x || y`.
            package let x963Representation: [UInt8]
            /// The decoded point, ready to multiply.
            let point: Point

            /// Imports an uncompressed point, refusing any point that is not on P-256.
            package init(x963Representation bytes: [UInt8]) throws {
                guard bytes.count == pointByteCount, bytes.first == 0x04 else {
                    throw CryptoFailure.invalidKey("a P-256 public key is a 65-byte uncompressed point")
                }
                self.point = try Curve.decode(bytes)
                self.x963Representation = bytes
            }

            /// The public half of a local key pair: a point computed here, so known to be valid.
            fileprivate init(derived point: Point) throws {
                self.x963Representation = try Curve.encode(point)
                self.point = point
            }
        }

        /// A private key and its public key.
        package struct PrivateKey: Sendable {
            /// The 32-byte big-endian scalar, leading zeros kept (a JWK's `d`).
            package let rawRepresentation: SecretBytes
            /// The matching public key.
            package let publicKey: PublicKey
            private let scalar: BigNumber

            /// A fresh key: a scalar uniform in [1, n) from OpenSSL's private generator, and d·G.
            package init() throws {
                let scalar = try Curve.randomScalar()
                self.rawRepresentation = try scalar.exported()
                self.publicKey = try PublicKey(derived: Curve.publicPoint(for: scalar))
                self.scalar = scalar
            }

            /// Imports a scalar, which must satisfy 0 < d < n, and computes its public key.
            package init(rawRepresentation: SecretBytes) throws {
                guard rawRepresentation.count == scalarByteCount else {
                    throw CryptoFailure.invalidKey("a P-256 private key has 32 bytes, not \(rawRepresentation.count)")
                }
                let scalar = try Curve.scalar(rawRepresentation)
                self.publicKey = try PublicKey(derived: Curve.publicPoint(for: scalar))
                self.rawRepresentation = rawRepresentation
                self.scalar = scalar
            }

            /// The ECDH shared secret with `peer`: the 32-byte x-coordinate of d·Q.
            ///
            /// The peer is not validated again here: every ``PublicKey`` was checked to be on the
            /// curve when it was made, and P-256 has cofactor 1.
            package func sharedSecret(with peer: PublicKey) throws -> SecretBytes {
                try Curve.sharedX(scalar: scalar, peer: peer.point)
            }
        }
    }
#endif
