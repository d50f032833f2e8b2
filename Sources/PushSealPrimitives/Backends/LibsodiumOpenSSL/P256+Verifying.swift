#if !PUSHSEAL_CRYPTOKIT
    internal import COpenSSL

    extension P256 {
        /// An ECDSA P-256 / SHA-256 public key (JWS `ES256`): checks the signatures that
        /// ``SigningKey`` makes, through the same OpenSSL `EVP_DigestVerify` path.
        package struct VerifyingKey: Sendable {
            private let key: SigningKey.EVPKey

            /// Imports an uncompressed point, refusing any point that is not on P-256.
            package init(x963Representation bytes: [UInt8]) throws {
                _ = try PublicKey(x963Representation: bytes)
                var imported: OpaquePointer?
                let succeeded = bytes.withUnsafeBytes { point in
                    var parameters = [
                        OSSL_PARAM_construct_utf8_string(
                            OSSLString.group, UnsafeMutablePointer(mutating: OSSLString.p256), 0),
                        point.octetParameter(OSSLString.publicKey),
                        OSSL_PARAM_construct_end(),
                    ]
                    guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { return false }
                    defer { EVP_PKEY_CTX_free(context) }
                    return EVP_PKEY_fromdata_init(context) == 1
                        && EVP_PKEY_fromdata(context, &imported, PUSHSEAL_EVP_PKEY_PUBLIC_KEY, &parameters) == 1
                }
                guard succeeded, let imported else { throw OpenSSL.failure("P-256 public key import") }
                key = SigningKey.EVPKey(owning: imported)
            }

            /// True when `signature` is a valid ES256 signature of `message`: exactly 64 bytes,
            /// `r || s` (RFC 7518 §3.4), each in [1, n), verifying over SHA-256(`message`).
            package func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
                defer { OpenSSL.clearErrors() }
                guard signature.count == 2 * scalarByteCount, let der = Self.derSignature(fromRaw: signature),
                    let context = EVP_MD_CTX_new()
                else { return false }
                defer { EVP_MD_CTX_free(context) }
                return EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key.pointer) == 1
                    && EVP_DigestVerify(context, der, der.count, message, message.count) == 1
            }

            /// `r || s` to the `ECDSA-Sig-Value` (DER) that OpenSSL verifies.
            private static func derSignature(fromRaw raw: [UInt8]) -> [UInt8]? {
                guard let signature = ECDSA_SIG_new() else { return nil }
                defer { ECDSA_SIG_free(signature) }
                let r = BN_bin2bn(Array(raw.prefix(scalarByteCount)), Int32(scalarByteCount), nil)
                let s = BN_bin2bn(Array(raw.suffix(scalarByteCount)), Int32(scalarByteCount), nil)
                guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
                    BN_free(r)
                    BN_free(s)
                    return nil
                }
                let length = i2d_ECDSA_SIG(signature, nil)
                guard length > 0 else { return nil }
                var der = [UInt8](repeating: 0, count: Int(length))
                let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
                    var cursor = buffer.baseAddress
                    return i2d_ECDSA_SIG(signature, &cursor)
                }
                return written == length ? der : nil
            }
        }
    }
#endif
