internal import COpenSSL

extension P256 {
    /// Curve arithmetic that the EVP layer does not offer: point validation and d·G.
    enum Curve {
        /// The P-256 group, made once; it is only read afterwards.
        nonisolated(unsafe) static let group: OpaquePointer? = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1)

        /// Throws unless `bytes` decodes to a point on the curve other than infinity.
        static func requireOnCurve(_ bytes: [UInt8]) throws {
            guard let group, let point = EC_POINT_new(group) else { throw OpenSSL.failure("EC_POINT_new") }
            defer { EC_POINT_free(point) }
            guard EC_POINT_oct2point(group, point, bytes, bytes.count, nil) == 1,
                EC_POINT_is_on_curve(group, point, nil) == 1,
                EC_POINT_is_at_infinity(group, point) == 0
            else {
                OpenSSL.clearErrors()
                throw CryptoFailure.invalidKey("the P-256 public key is not a point on the curve")
            }
        }

        /// The uncompressed public point d·G, after checking 0 < d < n.
        static func publicPoint(for scalar: SecretBytes) throws -> [UInt8] {
            guard let group, let order = EC_GROUP_get0_order(group) else { throw OpenSSL.failure("EC group") }
            let d = try BigNumber(scalar)
            guard BN_is_zero(d.pointer) == 0, BN_cmp(d.pointer, order) < 0 else {
                throw CryptoFailure.invalidKey("a P-256 private key must lie between 1 and the group order")
            }
            guard let context = BN_CTX_new() else { throw OpenSSL.failure("BN_CTX_new") }
            defer { BN_CTX_free(context) }
            guard let point = EC_POINT_new(group) else { throw OpenSSL.failure("EC_POINT_new") }
            defer { EC_POINT_free(point) }
            var bytes = [UInt8](repeating: 0, count: pointByteCount)
            guard EC_POINT_mul(group, point, d.pointer, nil, nil, context) == 1,
                EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, &bytes, bytes.count, context)
                    == pointByteCount
            else { throw OpenSSL.failure("P-256 public key computation") }
            return bytes
        }
    }

    /// A secret scalar as an OpenSSL BIGNUM, wiped (`BN_clear_free`) on release.
    final class BigNumber {
        let pointer: OpaquePointer

        init(_ scalar: SecretBytes) throws {
            guard let pointer = BN_secure_new() else { throw OpenSSL.failure("BN_secure_new") }
            guard scalar.withUnsafeBytes({ BN_bin2bn($0.bytePointer, Int32($0.count), pointer) }) != nil else {
                BN_clear_free(pointer)
                throw OpenSSL.failure("BN_bin2bn")
            }
            self.pointer = pointer
        }

        deinit { BN_clear_free(pointer) }
    }

    /// Owns an `EVP_PKEY`. OpenSSL keys are immutable once built, so sharing one between threads is safe.
    final class EVPKey: @unchecked Sendable {
        let pointer: OpaquePointer

        /// Builds a key from its parts: a public-only key when `privateScalar` is nil.
        init(publicPoint: [UInt8], privateScalar: SecretBytes?) throws {
            guard let builder = OSSL_PARAM_BLD_new() else { throw OpenSSL.failure("OSSL_PARAM_BLD_new") }
            defer { OSSL_PARAM_BLD_free(builder) }
            let scalar = try privateScalar.map(BigNumber.init)
            guard OSSL_PARAM_BLD_push_utf8_string(builder, OSSLString.group, OSSLString.p256, 0) == 1,
                OSSL_PARAM_BLD_push_octet_string(builder, OSSLString.publicKey, publicPoint, publicPoint.count)
                    == 1,
                scalar.map({ OSSL_PARAM_BLD_push_BN(builder, OSSLString.privateKey, $0.pointer) == 1 }) ?? true,
                let parameters = OSSL_PARAM_BLD_to_param(builder)
            else { throw OpenSSL.failure("P-256 key parameters") }
            // The scalar's copy lives in OpenSSL's secure heap (it came from a secure BIGNUM) and is wiped on free.
            defer { OSSL_PARAM_free(parameters) }
            guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
                throw OpenSSL.failure("EVP_PKEY_CTX_new_from_name")
            }
            defer { EVP_PKEY_CTX_free(context) }
            var key: OpaquePointer?
            // EVP_PKEY_PUBLIC_KEY and EVP_PKEY_KEYPAIR are compound macros that Swift cannot import.
            let parameterSelection = OSSL_KEYMGMT_SELECT_DOMAIN_PARAMETERS | OSSL_KEYMGMT_SELECT_OTHER_PARAMETERS
            let selection =
                parameterSelection | OSSL_KEYMGMT_SELECT_PUBLIC_KEY
                | (privateScalar == nil ? 0 : OSSL_KEYMGMT_SELECT_PRIVATE_KEY)
            guard EVP_PKEY_fromdata_init(context) == 1,
                EVP_PKEY_fromdata(context, &key, selection, parameters) == 1,
                let key
            else {
                OpenSSL.clearErrors()
                throw CryptoFailure.invalidKey("OpenSSL refused the P-256 key")
            }
            self.pointer = key
        }

        /// A fresh key pair from OpenSSL's P-256 key generation: the key, its scalar and its point.
        static func generate() throws -> (key: EVPKey, scalar: SecretBytes, point: [UInt8]) {
            guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
                throw OpenSSL.failure("EVP_PKEY_CTX_new_from_name")
            }
            defer { EVP_PKEY_CTX_free(context) }
            var generated: OpaquePointer?
            guard EVP_PKEY_keygen_init(context) == 1,
                EVP_PKEY_CTX_set_group_name(context, OSSLString.p256) == 1,
                EVP_PKEY_generate(context, &generated) == 1,
                let generated
            else { throw OpenSSL.failure("P-256 key generation") }
            let key = EVPKey(owning: generated)
            var scalar: OpaquePointer?
            guard EVP_PKEY_get_bn_param(generated, OSSLString.privateKey, &scalar) == 1, let scalar else {
                throw OpenSSL.failure("P-256 private scalar")
            }
            defer { BN_clear_free(scalar) }
            var written: Int32 = 0
            let raw = SecretBytes(count: scalarByteCount) { (out: UnsafeMutablePointer<UInt8>) in
                written = BN_bn2binpad(scalar, out, Int32(scalarByteCount))
            }
            var point = [UInt8](repeating: 0, count: pointByteCount)
            var pointLength = 0
            guard written == scalarByteCount,
                EVP_PKEY_get_octet_string_param(generated, OSSLString.publicKey, &point, point.count, &pointLength)
                    == 1,
                pointLength == pointByteCount, point.first == 0x04
            else { throw OpenSSL.failure("P-256 key parts") }
            return (key, raw, point)
        }

        init(owning pointer: OpaquePointer) {
            self.pointer = pointer
        }

        deinit { EVP_PKEY_free(pointer) }
    }
}
