#if !PUSHSEAL_CRYPTOKIT
    internal import COpenSSL

    /// HMAC-SHA256 (RFC 2104) through OpenSSL's `EVP_MAC` "HMAC".
    package enum HMAC {
        /// The length of an untruncated tag.
        package static let tagByteCount = 32

        nonisolated(unsafe) private static let template: OpaquePointer? = {
            guard let mac = OpenSSL.hmac, let context = EVP_MAC_CTX_new(mac) else { return nil }
            var parameters = [
                OSSL_PARAM_construct_utf8_string(
                    OSSLString.digest, UnsafeMutablePointer(mutating: OSSLString.sha256), 0),
                OSSL_PARAM_construct_end(),
            ]
            return EVP_MAC_CTX_set_params(context, &parameters) == 1 ? context : nil
        }()

        /// The 32-byte HMAC-SHA256 tag of `message` under `key`.
        package static func authenticationCode(key: some ContiguousBytes, message: some ContiguousBytes) throws
            -> [UInt8]
        {
            guard let template, let context = EVP_MAC_CTX_dup(template) else { throw OpenSSL.failure("HMAC context") }
            defer { EVP_MAC_CTX_free(context) }
            var tag = [UInt8](repeating: 0, count: tagByteCount)
            var written = 0
            var empty: UInt8 = 0
            let succeeded = withUnsafeMutablePointer(to: &empty) { emptyPointer in
                key.withUnsafeBytes { key in
                    message.withUnsafeBytes { message in
                        tag.withUnsafeMutableBufferPointer { out in
                            // OpenSSL treats a NULL key as "no key"; an empty key is a valid pointer with length 0.
                            EVP_MAC_init(context, key.bytePointer ?? UnsafePointer(emptyPointer), key.count, nil) == 1
                                && EVP_MAC_update(context, message.bytePointer, message.count) == 1
                                && EVP_MAC_final(context, out.baseAddress, &written, out.count) == 1
                        }
                    }
                }
            }
            guard succeeded, written == tagByteCount else { throw OpenSSL.failure("HMAC-SHA256") }
            return tag
        }
    }
#endif
