#if !PUSHSEAL_CRYPTOKIT
    internal import COpenSSL

    extension P256 {
        /// An ECDSA P-256 / SHA-256 signing key (JWS `ES256`), as APNs token authentication uses:
        /// read from the PKCS#8 PEM of an `AuthKey_XXXXXXXXXX.p8` file.
        package struct SigningKey: Sendable {
            private let key: EVPKey

            /// Reads an unencrypted PKCS#8 PEM private key, which must be on P-256.
            /// - Throws: ``CryptoFailure/invalidKey(_:)`` for anything else (never prompts for a passphrase).
            package init(pkcs8PEM pem: [UInt8]) throws {
                let parsed: OpaquePointer? = pem.withUnsafeBytes { bytes in
                    guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return nil }
                    defer { BIO_free(bio) }
                    // A non-NULL passphrase argument with no callback stops OpenSSL from prompting on a
                    // terminal: an encrypted key simply fails to load.
                    var empty: CChar = 0
                    return PEM_read_bio_PrivateKey(bio, nil, nil, &empty)
                }
                guard let parsed else {
                    OpenSSL.clearErrors()
                    throw CryptoFailure.invalidKey("not an unencrypted PKCS#8 PEM private key")
                }
                let owned = EVPKey(owning: parsed)
                var group = [CChar](repeating: 0, count: 64)
                var length = 0
                guard EVP_PKEY_is_a(parsed, "EC") == 1,
                    EVP_PKEY_get_group_name(parsed, &group, group.count, &length) == 1,
                    String(decoding: group.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) == "prime256v1"
                else {
                    OpenSSL.clearErrors()
                    throw CryptoFailure.invalidKey("the key is not on P-256, as ES256 requires")
                }
                key = owned
            }

            /// Imports a private scalar (a JWK's `d`), which must satisfy 0 < d < n, with its public
            /// point computed here.
            /// - Throws: ``CryptoFailure/invalidKey(_:)`` for a scalar of another length or out of range.
            package init(rawRepresentation: SecretBytes) throws {
                let point = try PrivateKey(rawRepresentation: rawRepresentation).publicKey.x963Representation
                // OpenSSL reads a BIGNUM parameter in the host's byte order, straight from this
                // buffer (no builder copy to leave behind); SecretBytes wipes it on release.
                let hostOrder = rawRepresentation.withUnsafeBytes { bigEndian in
                    SecretBytes(count: scalarByteCount) { (out: UnsafeMutablePointer<UInt8>) in
                        for index in 0..<scalarByteCount {
                            out[index] = bigEndian[1.littleEndian == 1 ? scalarByteCount - 1 - index : index]
                        }
                    }
                }
                var imported: OpaquePointer?
                let succeeded = point.withUnsafeBytes { point in
                    hostOrder.withUnsafeBytes { scalar in
                        var parameters = [
                            OSSL_PARAM_construct_utf8_string(
                                OSSLString.group, UnsafeMutablePointer(mutating: OSSLString.p256), 0),
                            point.octetParameter(OSSLString.publicKey),
                            OSSL_PARAM_construct_BN(
                                OSSLString.privateKey, UnsafeMutablePointer(mutating: scalar.bytePointer), scalar.count),
                            OSSL_PARAM_construct_end(),
                        ]
                        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { return false }
                        defer { EVP_PKEY_CTX_free(context) }
                        return EVP_PKEY_fromdata_init(context) == 1
                            && EVP_PKEY_fromdata(context, &imported, PUSHSEAL_EVP_PKEY_KEYPAIR, &parameters) == 1
                    }
                }
                guard succeeded, let imported else { throw OpenSSL.failure("P-256 signing key import") }
                key = EVPKey(owning: imported)
            }

            /// The uncompressed public point.
            package var publicKey: [UInt8] {
                var point = [UInt8](repeating: 0, count: pointByteCount)
                var length = 0
                _ = EVP_PKEY_get_octet_string_param(key.pointer, OSSLString.publicKey, &point, point.count, &length)
                return Array(point.prefix(length))
            }

            /// The ES256 signature of `message`: SHA-256, ECDSA, and the DER result turned into the
            /// 64-byte `r || s` that JWS requires (RFC 7518 §3.4).
            package func signature(for message: [UInt8]) throws -> [UInt8] {
                guard let context = EVP_MD_CTX_new() else { throw OpenSSL.failure("EVP_MD_CTX_new") }
                defer { EVP_MD_CTX_free(context) }
                var der = [UInt8](repeating: 0, count: 80)
                var derLength = der.count
                guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key.pointer) == 1,
                    EVP_DigestSign(context, &der, &derLength, message, message.count) == 1
                else { throw OpenSSL.failure("ES256 signing") }
                return try Self.rawSignature(fromDER: Array(der.prefix(derLength)))
            }

            /// `ECDSA-Sig-Value` (DER) to `r || s`, each left-padded to 32 bytes.
            static func rawSignature(fromDER der: [UInt8]) throws -> [UInt8] {
                let signature: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
                    var cursor = buffer.baseAddress
                    return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
                }
                guard let signature else { throw OpenSSL.failure("ECDSA signature decoding") }
                defer { ECDSA_SIG_free(signature) }
                var r: OpaquePointer?
                var s: OpaquePointer?
                ECDSA_SIG_get0(signature, &r, &s)
                var raw = [UInt8](repeating: 0, count: 64)
                let ok = raw.withUnsafeMutableBufferPointer { buffer -> Bool in
                    guard let base = buffer.baseAddress else { return false }
                    return BN_bn2binpad(r, base, 32) == 32 && BN_bn2binpad(s, base + 32, 32) == 32
                }
                guard ok else { throw OpenSSL.failure("ECDSA signature encoding") }
                return raw
            }
        }
    }

    extension P256.SigningKey {
        /// Owns an `EVP_PKEY`. OpenSSL keys are immutable once built, so sharing one between threads is safe.
        final class EVPKey: @unchecked Sendable {
            let pointer: OpaquePointer

            init(owning pointer: OpaquePointer) {
                self.pointer = pointer
            }

            deinit { EVP_PKEY_free(pointer) }
        }
    }
#endif
