internal import COpenSSL
public import Foundation

extension P256 {
    /// ECDSA over P-256 with SHA-256.
    public enum Signing {
        /// A verifying key: a point on the curve.
        public struct PublicKey: Sendable {
            let key: ECKey

            /// The point `04 || x || y` (65 bytes), which must lie on P-256.
            public init<D: ContiguousBytes>(x963Representation: D) throws {
                key = try ECKey(point: x963Representation.withUnsafeBytes { Array($0) })
            }

            init(key: ECKey) {
                self.key = key
            }

            /// The uncompressed point `04 || x || y`.
            public var x963Representation: Data { Data(key.point) }

            /// True when `signature` verifies over SHA-256(`data`) under this key; r and s
            /// outside [1, n) never verify.
            public func isValidSignature<D: DataProtocol>(_ signature: ECDSASignature, for data: D) -> Bool {
                guard let der = signature.der, let context = EVP_MD_CTX_new() else { return false }
                defer {
                    EVP_MD_CTX_free(context)
                    ERR_clear_error()
                }
                let message = Array(data)
                return EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key.pointer) == 1
                    && EVP_DigestVerify(context, der, der.count, message, message.count) == 1
            }
        }

        /// A signing key.
        public struct PrivateKey: Sendable {
            let key: ECKey

            /// The key in a PEM document (`PRIVATE KEY` or `EC PRIVATE KEY`), which must be on P-256.
            /// - Throws: `CryptoKitError.invalidParameter` for anything else.
            public init(pemRepresentation: String) throws {
                key = try ECKey.privateKey(pem: pemRepresentation)
            }

            /// The key whose big-endian scalar is `rawRepresentation`, which must lie in [1, n).
            /// - Throws: `CryptoKitError.incorrectKeySize` unless it has 32 bytes,
            ///   `CryptoKitError.invalidParameter` for a scalar out of range.
            public init<D: ContiguousBytes>(rawRepresentation: D) throws {
                key = try rawRepresentation.withUnsafeBytes { try ECKey(scalar: $0) }
            }

            /// The matching verifying key.
            public var publicKey: PublicKey { PublicKey(key: key.publicOnly) }

            /// The ECDSA signature of SHA-256(`data`).
            public func signature<D: DataProtocol>(for data: D) throws -> ECDSASignature {
                guard let context = EVP_MD_CTX_new() else { throw OpenSSLAlgorithms.failure() }
                defer { EVP_MD_CTX_free(context) }
                let message = Array(data)
                var der = [UInt8](repeating: 0, count: 80)
                var length = der.count
                guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key.pointer) == 1,
                    EVP_DigestSign(context, &der, &length, message, message.count) == 1
                else { throw OpenSSLAlgorithms.failure() }
                return try ECDSASignature(der: Array(der.prefix(length)))
            }
        }

        /// An ECDSA signature.
        public struct ECDSASignature: Sendable {
            /// `r || s`, each 32 bytes big-endian (the IEEE P1363 form JWS uses).
            public let rawRepresentation: Data

            /// The signature `r || s`.
            /// - Throws: `CryptoKitError.incorrectParameterSize` unless it has 64 bytes.
            public init<D: DataProtocol>(rawRepresentation: D) throws {
                guard rawRepresentation.count == 64 else { throw CryptoKitError.incorrectParameterSize }
                self.rawRepresentation = Data(rawRepresentation)
            }

            /// The signature from its DER `ECDSA-Sig-Value`.
            init(der: [UInt8]) throws {
                let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
                    var cursor = buffer.baseAddress
                    return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
                }
                guard let parsed else { throw OpenSSLAlgorithms.failure() }
                defer { ECDSA_SIG_free(parsed) }
                var raw = [UInt8](repeating: 0, count: 64)
                let padded = raw.withUnsafeMutableBufferPointer { out in
                    guard let base = out.baseAddress else { return false }
                    return BN_bn2binpad(ECDSA_SIG_get0_r(parsed), base, 32) == 32
                        && BN_bn2binpad(ECDSA_SIG_get0_s(parsed), base + 32, 32) == 32
                }
                guard padded else { throw OpenSSLAlgorithms.failure() }
                rawRepresentation = Data(raw)
            }

            /// The DER `ECDSA-Sig-Value` OpenSSL verifies, or nil when it cannot be built.
            var der: [UInt8]? {
                let raw = Array(rawRepresentation)
                guard let signature = ECDSA_SIG_new() else { return nil }
                defer { ECDSA_SIG_free(signature) }
                guard let r = BN_bin2bn(Array(raw[..<32]), 32, nil) else { return nil }
                guard let s = BN_bin2bn(Array(raw[32...]), 32, nil), ECDSA_SIG_set0(signature, r, s) == 1 else {
                    BN_free(r)
                    return nil
                }
                var encoded: UnsafeMutablePointer<UInt8>?
                let length = i2d_ECDSA_SIG(signature, &encoded)
                guard length > 0, let encoded else { return nil }
                defer { CRYPTO_free(encoded, #fileID, #line) }
                return Array(UnsafeBufferPointer(start: encoded, count: Int(length)))
            }
        }
    }
}
