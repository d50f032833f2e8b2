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
#endif
