internal import COpenSSL

/// NIST P-256 key agreement (ECDH) through OpenSSL 3's EVP interface.
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
        /// The OpenSSL key for using this point as a peer; imported points carry one, the public
        /// half of a local key pair gets one only if it is ever used as a peer.
        private let peerKey: EVPKey?

        /// Imports an uncompressed point, refusing any point that is not on P-256.
        package init(x963Representation bytes: [UInt8]) throws {
            guard bytes.count == pointByteCount, bytes.first == 0x04 else {
                throw CryptoFailure.invalidKey("a P-256 public key is a 65-byte uncompressed point")
            }
            try Curve.requireOnCurve(bytes)
            self.x963Representation = bytes
            self.peerKey = try EVPKey(publicPoint: bytes, privateScalar: nil)
        }

        /// The public half of a local key pair: a point already known to be valid.
        fileprivate init(derived bytes: [UInt8]) {
            self.x963Representation = bytes
            self.peerKey = nil
        }

        /// The key to derive against.
        func asPeer() throws -> EVPKey {
            try peerKey ?? EVPKey(publicPoint: x963Representation, privateScalar: nil)
        }
    }

    /// A private key and its public key.
    package struct PrivateKey: Sendable {
        /// The 32-byte big-endian scalar, leading zeros kept (a JWK's `d`).
        package let rawRepresentation: SecretBytes
        /// The matching public key.
        package let publicKey: PublicKey
        private let key: EVPKey

        /// A fresh key from OpenSSL's generator.
        package init() throws {
            let generated = try EVPKey.generate()
            self.rawRepresentation = generated.scalar
            self.publicKey = PublicKey(derived: generated.point)
            self.key = generated.key
        }

        /// Imports a scalar, which must satisfy 0 < d < n, and computes its public key.
        package init(rawRepresentation: SecretBytes) throws {
            guard rawRepresentation.count == scalarByteCount else {
                throw CryptoFailure.invalidKey("a P-256 private key has 32 bytes, not \(rawRepresentation.count)")
            }
            let point = try Curve.publicPoint(for: rawRepresentation)
            self.key = try EVPKey(publicPoint: point, privateScalar: rawRepresentation)
            self.rawRepresentation = rawRepresentation
            self.publicKey = PublicKey(derived: point)
        }

        /// The ECDH shared secret with `peer`: the 32-byte x-coordinate of d·Q.
        ///
        /// The peer is not validated again here: every ``PublicKey`` was checked to be on the
        /// curve when it was made, and P-256 has cofactor 1, so OpenSSL's repeated full check
        /// (`EVP_PKEY_public_check` on every derive) would only double the cost.
        package func sharedSecret(with peer: PublicKey) throws -> SecretBytes {
            let peerKey = try peer.asPeer()
            guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else {
                throw OpenSSL.failure("EVP_PKEY_CTX_new_from_pkey")
            }
            defer { EVP_PKEY_CTX_free(context) }
            guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_derive_set_peer_ex(context, peerKey.pointer, 0) == 1
            else {
                OpenSSL.clearErrors()
                throw CryptoFailure.authenticationFailed
            }
            var length = scalarByteCount
            var succeeded = false
            let secret = SecretBytes(count: scalarByteCount) { out in
                succeeded =
                    EVP_PKEY_derive(context, out.baseAddress?.assumingMemoryBound(to: UInt8.self), &length) == 1
            }
            guard succeeded, length == scalarByteCount else {
                OpenSSL.clearErrors()
                throw CryptoFailure.authenticationFailed
            }
            return secret
        }
    }
}
