/// X25519 key agreement (RFC 7748): the public key here, the private key in each backend.
package enum X25519 {
    /// The length of private keys, public keys and shared secrets.
    package static let keyByteCount = 32

    /// A public key: 32 bytes, exactly as on the wire and in a JWK's `x`.
    package struct PublicKey: Sendable, Hashable {
        /// The raw 32 bytes.
        package let rawRepresentation: [UInt8]

        /// Wraps 32 raw bytes. Any 32 bytes are a syntactically valid X25519 public key;
        /// low-order points are refused later, when agreement yields all zeros.
        package init(rawRepresentation: [UInt8]) throws {
            guard rawRepresentation.count == keyByteCount else {
                throw CryptoFailure.invalidKey("an X25519 public key has 32 bytes, not \(rawRepresentation.count)")
            }
            self.rawRepresentation = rawRepresentation
        }

        /// True for a point of small order (the identity and the points of order 2, 4 and 8, in
        /// any of their encodings): X25519 with any private key yields all zeros for it (RFC 7748
        /// §6.1), so no agreement with it can succeed. Tested by an agreement with a fresh key.
        package var hasSmallOrder: Bool {
            (try? PrivateKey().sharedSecret(with: self)) == nil
        }

        /// The public half of a local key pair: computed here, so known to be 32 bytes.
        init(derived bytes: [UInt8]) {
            rawRepresentation = bytes
        }
    }
}
