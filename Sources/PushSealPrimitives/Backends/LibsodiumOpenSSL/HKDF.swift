#if !PUSHSEAL_CRYPTOKIT
    internal import COpenSSL

    /// HKDF-SHA256 (RFC 5869) through OpenSSL's `EVP_KDF` "HKDF", in its extract-only and expand-only modes.
    ///
    /// The KDF is fetched once per process (``OpenSSL/hkdf``); each call makes a fresh context, since
    /// OpenSSL 3.0's HKDF cannot duplicate one.
    package enum HKDF {
        /// The output length of Extract, and the largest length Expand allows is 255 times it.
        package static let hashByteCount = 32

        /// HKDF-Extract(salt, ikm): a 32-byte pseudorandom key. An empty salt means 32 zero bytes.
        package static func extract(salt: some ContiguousBytes, ikm: some ContiguousBytes) throws -> SecretBytes {
            try derive(
                mode: EVP_KDF_HKDF_MODE_EXTRACT_ONLY, key: ikm, salt: salt, info: [UInt8](), length: hashByteCount)
        }

        /// HKDF-Expand(prk, info, length).
        /// - Throws: ``CryptoFailure/invalidInput(_:)`` when `length` exceeds 255 × 32 bytes.
        package static func expand(prk: some ContiguousBytes, info: some ContiguousBytes, length: Int) throws
            -> SecretBytes
        {
            try derive(mode: EVP_KDF_HKDF_MODE_EXPAND_ONLY, key: prk, salt: [UInt8](), info: info, length: length)
        }

        /// Extract then Expand in one call (RFC 5869 §2), as Wycheproof's vectors exercise it.
        package static func deriveKey(
            ikm: some ContiguousBytes, salt: some ContiguousBytes, info: some ContiguousBytes, length: Int
        ) throws -> SecretBytes {
            try derive(mode: EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND, key: ikm, salt: salt, info: info, length: length)
        }

        private static func derive(
            mode: Int32, key: some ContiguousBytes, salt: some ContiguousBytes, info: some ContiguousBytes, length: Int
        ) throws -> SecretBytes {
            guard length > 0, length <= 255 * hashByteCount else {
                throw CryptoFailure.invalidInput(
                    "HKDF-SHA256 output of \(length) bytes is outside 1…\(255 * hashByteCount)")
            }
            guard let kdf = OpenSSL.hkdf, let context = EVP_KDF_CTX_new(kdf) else {
                throw OpenSSL.failure("HKDF context")
            }
            defer { EVP_KDF_CTX_free(context) }
            var mode = mode
            var succeeded = false
            let output = SecretBytes(count: length) { out in
                // OpenSSL refuses a missing key, so an empty one is passed as a valid pointer with length 0.
                var empty: UInt8 = 0
                succeeded = key.withUnsafeBytes { key in
                    salt.withUnsafeBytes { salt in
                        info.withUnsafeBytes { info in
                            withUnsafeMutablePointer(to: &empty) { emptyPointer in
                                var parameters = [
                                    OSSL_PARAM_construct_utf8_string(
                                        OSSLString.digest, UnsafeMutablePointer(mutating: OSSLString.sha256), 0),
                                    OSSL_PARAM_construct_int(OSSLString.mode, &mode),
                                ]
                                let keyBytes =
                                    key.count > 0 ? key : UnsafeRawBufferPointer(start: emptyPointer, count: 0)
                                parameters.append(keyBytes.octetParameter(OSSLString.key))
                                if salt.count > 0 { parameters.append(salt.octetParameter(OSSLString.salt)) }
                                if info.count > 0 { parameters.append(info.octetParameter(OSSLString.info)) }
                                parameters.append(OSSL_PARAM_construct_end())
                                return EVP_KDF_derive(
                                    context, out.baseAddress?.assumingMemoryBound(to: UInt8.self), out.count,
                                    &parameters)
                                    == 1
                            }
                        }
                    }
                }
            }
            guard succeeded else { throw OpenSSL.failure("HKDF-SHA256") }
            return output
        }
    }
#endif
