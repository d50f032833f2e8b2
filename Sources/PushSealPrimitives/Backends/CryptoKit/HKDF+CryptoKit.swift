#if PUSHSEAL_CRYPTOKIT
    #if canImport(CryptoKit)
        import CryptoKit
    #else
        import CryptoKitStandIn
    #endif

    /// HKDF-SHA256 (RFC 5869) from CryptoKit's `HKDF<SHA256>`.
    package enum HKDF {
        /// The output length of Extract, and the largest length Expand allows is 255 times it.
        package static let hashByteCount = 32

        /// HKDF-Extract(salt, ikm): a 32-byte pseudorandom key. An empty salt means 32 zero bytes.
        package static func extract(salt: some ContiguousBytes, ikm: some ContiguousBytes) throws -> SecretBytes {
            let prk = ikm.withUnsafeBytes { ikm in
                salt.withUnsafeBytes { salt in
                    Kit.HKDF<Kit.SHA256>.extract(inputKeyMaterial: Kit.SymmetricKey(data: ikm), salt: salt)
                }
            }
            return prk.withUnsafeBytes { SecretBytes(copying: $0) }
        }

        /// HKDF-Expand(prk, info, length).
        /// - Throws: ``CryptoFailure/invalidInput(_:)`` when `length` exceeds 255 × 32 bytes.
        package static func expand(prk: some ContiguousBytes, info: some ContiguousBytes, length: Int) throws
            -> SecretBytes
        {
            try checkLength(length)
            let key = prk.withUnsafeBytes { prk in
                info.withUnsafeBytes { info in
                    Kit.HKDF<Kit.SHA256>.expand(pseudoRandomKey: prk, info: info, outputByteCount: length)
                }
            }
            return key.withUnsafeBytes { SecretBytes(copying: $0) }
        }

        /// Extract then Expand in one call (RFC 5869 §2), as Wycheproof's vectors exercise it.
        package static func deriveKey(
            ikm: some ContiguousBytes, salt: some ContiguousBytes, info: some ContiguousBytes, length: Int
        ) throws -> SecretBytes {
            try checkLength(length)
            return try expand(prk: try extract(salt: salt, ikm: ikm), info: info, length: length)
        }

        private static func checkLength(_ length: Int) throws {
            guard length > 0, length <= 255 * hashByteCount else {
                throw CryptoFailure.invalidInput(
                    "HKDF-SHA256 output of \(length) bytes is outside 1…\(255 * hashByteCount)")
            }
        }
    }

    /// HMAC-SHA256 (RFC 2104) from CryptoKit's `HMAC<SHA256>`.
    package enum HMAC {
        /// The length of an untruncated tag.
        package static let tagByteCount = 32

        /// The 32-byte HMAC-SHA256 tag of `message` under `key`.
        package static func authenticationCode(key: some ContiguousBytes, message: some ContiguousBytes) throws
            -> [UInt8]
        {
            key.withUnsafeBytes { key in
                message.withUnsafeBytes { message in
                    Array(Kit.HMAC<Kit.SHA256>.authenticationCode(for: message, using: Kit.SymmetricKey(data: key)))
                }
            }
        }
    }

    /// SHA-256 (FIPS 180-4) from CryptoKit.
    package enum SHA256 {
        /// The digest length.
        package static let byteCount = 32

        /// The SHA-256 digest of `bytes`.
        package static func hash(_ bytes: some ContiguousBytes) -> [UInt8] {
            bytes.withUnsafeBytes { Array(Kit.SHA256.hash(data: $0)) }
        }
    }

    extension SHA256 {
        /// SHA-256 over data that arrives in pieces (CryptoKit's `SHA256` hash function): a
        /// download hashed as it streams. Not thread-safe; one per stream.
        package final class Hasher {
            private var function = Kit.SHA256()

            /// A fresh hash.
            package init() {}

            /// Adds `bytes`.
            package func update(_ bytes: UnsafeRawBufferPointer) {
                function.update(bufferPointer: bytes)
            }

            /// The digest of everything added.
            package func finalize() -> [UInt8] {
                Array(function.finalize())
            }
        }
    }
#endif
