#if !PUSHSEAL_CRYPTOKIT
    internal import COpenSSL

    /// SHA-256 (FIPS 180-4) through OpenSSL's `EVP_Digest`.
    package enum SHA256 {
        /// The digest length.
        package static let byteCount = 32

        /// The SHA-256 digest of `bytes`.
        package static func hash(_ bytes: some ContiguousBytes) -> [UInt8] {
            var digest = [UInt8](repeating: 0, count: byteCount)
            let ok = bytes.withUnsafeBytes { input in
                digest.withUnsafeMutableBufferPointer { out in
                    EVP_Digest(input.baseAddress, input.count, out.baseAddress, nil, OpenSSL.sha256, nil) == 1
                }
            }
            precondition(ok, "SHA-256 is unavailable from OpenSSL")
            return digest
        }
    }

    extension SHA256 {
        /// SHA-256 over data that arrives in pieces (`EVP_DigestUpdate`): a download hashed as it
        /// streams. Not thread-safe; one per stream.
        package final class Hasher {
            private let context: OpaquePointer

            /// A fresh hash.
            package init() {
                guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, OpenSSL.sha256, nil) == 1 else {
                    preconditionFailure("SHA-256 is unavailable from OpenSSL")
                }
                self.context = context
            }

            deinit { EVP_MD_CTX_free(context) }

            /// Adds `bytes`.
            package func update(_ bytes: UnsafeRawBufferPointer) {
                guard bytes.count > 0 else { return }
                precondition(EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1, "SHA-256 update failed")
            }

            /// The digest of everything added.
            package func finalize() -> [UInt8] {
                var digest = [UInt8](repeating: 0, count: byteCount)
                var length: UInt32 = 0
                precondition(EVP_DigestFinal_ex(context, &digest, &length) == 1, "SHA-256 final failed")
                return digest
            }
        }
    }
#endif
