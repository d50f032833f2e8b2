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
        /// §6.1), so no agreement with it can succeed.
        ///
        /// A comparison with the seven encodings of those points (the unused top bit ignored),
        /// the list libsodium's own check uses, rather than an agreement: it runs at every store
        /// load, on every decrypt. Wycheproof's `ZeroSharedSecret` cases are exactly these points.
        package var hasSmallOrder: Bool {
            Self.smallOrderEncodings.contains { encoding in
                rawRepresentation[..<31].elementsEqual(encoding[..<31]) && rawRepresentation[31] & 0x7F == encoding[31]
            }
        }

        private static let smallOrderEncodings: [[UInt8]] = [
            [UInt8](repeating: 0, count: 32),  // 0
            [1] + [UInt8](repeating: 0, count: 31),  // 1
            [
                0xE0, 0xEB, 0x7A, 0x7C, 0x3B, 0x41, 0xB8, 0xAE, 0x16, 0x56, 0xE3, 0xFA, 0xF1, 0x9F, 0xC4, 0x6A,
                0xDA, 0x09, 0x8D, 0xEB, 0x9C, 0x32, 0xB1, 0xFD, 0x86, 0x62, 0x05, 0x16, 0x5F, 0x49, 0xB8, 0x00,
            ],  // a point of order 8
            [
                0x5F, 0x9C, 0x95, 0xBC, 0xA3, 0x50, 0x8C, 0x24, 0xB1, 0xD0, 0xB1, 0x55, 0x9C, 0x83, 0xEF, 0x5B,
                0x04, 0x44, 0x5C, 0xC4, 0x58, 0x1C, 0x8E, 0x86, 0xD8, 0x22, 0x4E, 0xDD, 0xD0, 0x9F, 0x11, 0x57,
            ],  // the other point of order 8
            [0xEC] + [UInt8](repeating: 0xFF, count: 30) + [0x7F],  // p − 1
            [0xED] + [UInt8](repeating: 0xFF, count: 30) + [0x7F],  // p, which is 0
            [0xEE] + [UInt8](repeating: 0xFF, count: 30) + [0x7F],  // p + 1, which is 1
        ]

        /// The public half of a local key pair: computed here, so known to be 32 bytes.
        init(derived bytes: [UInt8]) {
            rawRepresentation = bytes
        }
    }
}
