internal import COpenSSL
public import Foundation

/// NIST P-256, as CryptoKit's namespace of that name: key agreement and ECDSA signing, on OpenSSL.
public enum P256 {
    /// ECDH on P-256.
    public enum KeyAgreement {
        /// A public key: a point on the curve.
        public struct PublicKey: Sendable {
            let key: ECKey

            /// The point `04 || x || y` (65 bytes), which must lie on P-256.
            /// - Throws: `CryptoKitError.incorrectParameterSize` for another length,
            ///   `CryptoKitError.invalidParameter` for a point off the curve.
            public init<D: ContiguousBytes>(x963Representation: D) throws {
                key = try ECKey(point: x963Representation.withUnsafeBytes { Array($0) })
            }

            init(key: ECKey) {
                self.key = key
            }

            /// The uncompressed point `04 || x || y`.
            public var x963Representation: Data { Data(key.point) }
        }

        /// A private key.
        public struct PrivateKey: Sendable {
            let key: ECKey

            /// The key whose big-endian scalar is `rawRepresentation`, which must lie in [1, n).
            /// - Throws: `CryptoKitError.incorrectKeySize` unless it has 32 bytes,
            ///   `CryptoKitError.invalidParameter` for a scalar out of range.
            public init<D: ContiguousBytes>(rawRepresentation: D) throws {
                key = try rawRepresentation.withUnsafeBytes { try ECKey(scalar: $0) }
            }

            /// The matching public key.
            public var publicKey: PublicKey { PublicKey(key: key.publicOnly) }

            /// The ECDH shared secret with `publicKeyShare`: the x-coordinate of d·Q.
            public func sharedSecretFromKeyAgreement(with publicKeyShare: PublicKey) throws -> SharedSecret {
                SharedSecret(storage: try key.agree(with: publicKeyShare.key))
            }
        }
    }
}

/// A P-256 `EVP_PKEY` (immutable once made, so shared between threads) and its public point.
final class ECKey: @unchecked Sendable {
    let pointer: OpaquePointer
    /// `04 || x || y`.
    let point: [UInt8]

    /// A public key from its uncompressed point, checked to lie on the curve.
    convenience init(point: [UInt8]) throws {
        guard point.count == 65 else { throw CryptoKitError.incorrectParameterSize }
        self.init(owning: try Self.importKey(point: point, scalar: nil), point: point)
    }

    /// A private key from its scalar, with its public point computed.
    convenience init(scalar: UnsafeRawBufferPointer) throws {
        guard scalar.count == 32 else { throw CryptoKitError.incorrectKeySize }
        let point = try Self.publicPoint(of: scalar)
        self.init(owning: try Self.importKey(point: point, scalar: scalar), point: point)
    }

    private init(owning pointer: OpaquePointer, point: [UInt8]) {
        self.pointer = pointer
        self.point = point
    }

    /// The public half alone.
    var publicOnly: ECKey {
        // swift-format-ignore: NeverUseForceTry
        try! ECKey(point: point)
    }

    deinit { EVP_PKEY_free(pointer) }

    /// d·G for the scalar `d`, refusing d = 0 and d ≥ n.
    private static func publicPoint(of scalar: UnsafeRawBufferPointer) throws -> [UInt8] {
        guard let group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) else { throw OpenSSLAlgorithms.failure() }
        defer { EC_GROUP_free(group) }
        guard let d = BN_secure_new(), let product = EC_POINT_new(group) else { throw OpenSSLAlgorithms.failure() }
        defer {
            BN_clear_free(d)
            EC_POINT_clear_free(product)
        }
        BN_set_flags(d, BN_FLG_CONSTTIME)
        guard BN_bin2bn(scalar.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(scalar.count), d) != nil,
            let order = EC_GROUP_get0_order(group)
        else { throw OpenSSLAlgorithms.failure() }
        guard BN_is_zero(d) == 0, BN_cmp(d, order) < 0 else { throw CryptoKitError.invalidParameter }
        var point = [UInt8](repeating: 0, count: 65)
        guard EC_POINT_mul(group, product, d, nil, nil, nil) == 1,
            EC_POINT_point2oct(group, product, POINT_CONVERSION_UNCOMPRESSED, &point, point.count, nil) == 65
        else { throw OpenSSLAlgorithms.failure() }
        return point
    }

    /// An `EVP_PKEY` from its point and, for a private key, its scalar; OpenSSL refuses a point
    /// that is not on the curve.
    private static func importKey(point: [UInt8], scalar: UnsafeRawBufferPointer?) throws -> OpaquePointer {
        guard let builder = OSSL_PARAM_BLD_new() else { throw OpenSSLAlgorithms.failure() }
        defer { OSSL_PARAM_BLD_free(builder) }
        var d: OpaquePointer?
        defer { BN_clear_free(d) }
        if let scalar {
            d = BN_secure_new()
            guard BN_bin2bn(scalar.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(scalar.count), d) != nil
            else { throw OpenSSLAlgorithms.failure() }
        }
        // The builder keeps the names' pointers: static strings only.
        guard
            OSSL_PARAM_BLD_push_utf8_string(
                builder, OpenSSLParameters.name("group"), OpenSSLParameters.name("prime256v1"), 0) == 1,
            OSSL_PARAM_BLD_push_octet_string(builder, OpenSSLParameters.name("pub"), point, point.count) == 1,
            d.map({ OSSL_PARAM_BLD_push_BN(builder, OpenSSLParameters.name("priv"), $0) == 1 }) ?? true,
            let parameters = OSSL_PARAM_BLD_to_param(builder)
        else { throw OpenSSLAlgorithms.failure() }
        defer { OSSL_PARAM_free(parameters) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw OpenSSLAlgorithms.failure() }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        let selection = scalar == nil ? PUSHSEAL_EVP_PKEY_PUBLIC_KEY : PUSHSEAL_EVP_PKEY_KEYPAIR
        guard EVP_PKEY_fromdata_init(context) == 1, EVP_PKEY_fromdata(context, &key, selection, parameters) == 1,
            let key
        else {
            ERR_clear_error()
            throw CryptoKitError.invalidParameter
        }
        return key
    }

    /// ECDH with `peer` (OpenSSL's `EVP_PKEY_derive`): the 32-byte x-coordinate.
    func agree(with peer: ECKey) throws -> SecureBytes {
        guard let context = EVP_PKEY_CTX_new(pointer, nil) else { throw OpenSSLAlgorithms.failure() }
        defer { EVP_PKEY_CTX_free(context) }
        return try SecureBytes(count: 32) { out in
            var length = out.count
            guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_derive_set_peer(context, peer.pointer) == 1,
                EVP_PKEY_derive(context, out.baseAddress?.assumingMemoryBound(to: UInt8.self), &length) == 1,
                length == 32
            else { throw OpenSSLAlgorithms.failure() }
        }
    }

    /// The key read from a PEM private key (PKCS#8 or SEC1), which must be on P-256.
    static func privateKey(pem: String) throws -> ECKey {
        let bytes = Array(pem.utf8)
        let parsed: OpaquePointer? = bytes.withUnsafeBytes { bytes in
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return nil }
            defer { BIO_free(bio) }
            var noPassphrase: CChar = 0
            return PEM_read_bio_PrivateKey(bio, nil, nil, &noPassphrase)
        }
        guard let parsed else {
            ERR_clear_error()
            throw CryptoKitError.invalidParameter
        }
        var group = [CChar](repeating: 0, count: 32)
        var point = [UInt8](repeating: 0, count: 65)
        var groupLength = 0
        var length = 0
        guard EVP_PKEY_is_a(parsed, "EC") == 1,
            EVP_PKEY_get_group_name(parsed, &group, group.count, &groupLength) == 1,
            String(decoding: group.prefix(groupLength).map { UInt8(bitPattern: $0) }, as: UTF8.self) == "prime256v1",
            EVP_PKEY_get_octet_string_param(parsed, "pub", &point, point.count, &length) == 1, length == 65
        else {
            EVP_PKEY_free(parsed)
            ERR_clear_error()
            throw CryptoKitError.invalidParameter
        }
        return ECKey(owning: parsed, point: point)
    }
}
