#if !PUSHSEAL_CRYPTOKIT
    internal import COpenSSL

    extension P256 {
        /// OpenSSL's P-256 group arithmetic (`EC_POINT_mul` and friends), the layer beneath its ECDH
        /// and key-generation providers.
        ///
        /// Calling it directly does the provider's own work (draw a scalar, multiply, take the affine
        /// x-coordinate) without building an `EVP_PKEY`, a context and a parameter list for every
        /// message, which in OpenSSL 3.0 costs as much as the multiplication itself.
        enum Curve {
            /// The P-256 group, made once; `EC_POINT_mul` only reads it, so threads may share it.
            nonisolated(unsafe) static let group: OpaquePointer? = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1)

            /// The group, or the failure of a build of OpenSSL without P-256.
            static func requireGroup() throws -> OpaquePointer {
                guard let group else { throw OpenSSL.failure("EC_GROUP_new_by_curve_name(P-256)") }
                return group
            }

            /// A fresh scalar uniform in [1, n), drawn by OpenSSL's private generator as its EC key
            /// generation does.
            static func randomScalar() throws -> BigNumber {
                let group = try requireGroup()
                let scalar = try BigNumber()
                guard let order = EC_GROUP_get0_order(group) else { throw OpenSSL.failure("EC_GROUP_get0_order") }
                repeat {
                    guard BN_priv_rand_range_ex(scalar.pointer, order, 0, nil) == 1 else {
                        throw OpenSSL.failure("BN_priv_rand_range_ex")
                    }
                } while BN_is_zero(scalar.pointer) == 1
                return scalar
            }

            /// `scalar`, after checking that 0 < d < n.
            static func scalar(_ bytes: SecretBytes) throws -> BigNumber {
                let group = try requireGroup()
                let scalar = try BigNumber(bytes)
                guard let order = EC_GROUP_get0_order(group), BN_is_zero(scalar.pointer) == 0,
                    BN_cmp(scalar.pointer, order) < 0
                else { throw CryptoFailure.invalidKey("a P-256 private key must lie between 1 and the group order") }
                return scalar
            }

            /// d·G, the public point of `scalar`.
            static func publicPoint(for scalar: BigNumber) throws -> Point {
                let group = try requireGroup()
                let point = try Point(group)
                let context = try ScratchContext()
                guard EC_POINT_mul(group, point.pointer, scalar.pointer, nil, nil, context.pointer) == 1 else {
                    throw OpenSSL.failure("P-256 public key computation")
                }
                return point
            }

            /// Decodes an uncompressed point, refusing one that is not on the curve or is infinity.
            static func decode(_ bytes: [UInt8]) throws -> Point {
                let group = try requireGroup()
                let point = try Point(group)
                // oct2point already refuses off-curve coordinates; the explicit checks keep that
                // guarantee independent of the OpenSSL version.
                guard EC_POINT_oct2point(group, point.pointer, bytes, bytes.count, nil) == 1,
                    EC_POINT_is_on_curve(group, point.pointer, nil) == 1,
                    EC_POINT_is_at_infinity(group, point.pointer) == 0
                else {
                    OpenSSL.clearErrors()
                    throw CryptoFailure.invalidKey("the P-256 public key is not a point on the curve")
                }
                return point
            }

            /// `04 || x || y`.
            static func encode(_ point: Point) throws -> [UInt8] {
                let group = try requireGroup()
                var bytes = [UInt8](repeating: 0, count: pointByteCount)
                guard
                    EC_POINT_point2oct(group, point.pointer, POINT_CONVERSION_UNCOMPRESSED, &bytes, bytes.count, nil)
                        == pointByteCount
                else { throw OpenSSL.failure("EC_POINT_point2oct") }
                return bytes
            }

            /// The x-coordinate of d·Q, 32 bytes big-endian: ECDH as OpenSSL's provider computes it
            /// (P-256 has cofactor 1, so there is no cofactor step).
            static func sharedX(scalar: BigNumber, peer: Point) throws -> SecretBytes {
                let group = try requireGroup()
                let product = try Point(group)
                let context = try ScratchContext()
                guard let x = BN_CTX_get(context.pointer) else { throw OpenSSL.failure("BN_CTX_get") }
                var written: Int32 = 0
                let secret = SecretBytes(count: scalarByteCount) { (out: UnsafeMutablePointer<UInt8>) in
                    guard EC_POINT_mul(group, product.pointer, nil, peer.pointer, scalar.pointer, context.pointer) == 1,
                        EC_POINT_get_affine_coordinates(group, product.pointer, x, nil, context.pointer) == 1
                    else { return }
                    written = BN_bn2binpad(x, out, Int32(scalarByteCount))
                }
                guard written == scalarByteCount else {
                    OpenSSL.clearErrors()
                    throw CryptoFailure.authenticationFailed
                }
                return secret
            }
        }

        /// A point of the group. Immutable once computed or decoded, so threads may share it.
        final class Point: @unchecked Sendable {
            let pointer: OpaquePointer

            init(_ group: OpaquePointer) throws {
                guard let pointer = EC_POINT_new(group) else { throw OpenSSL.failure("EC_POINT_new") }
                self.pointer = pointer
            }

            /// Cleared on release, since a DH product is a secret; for a public point it costs nothing
            /// worth a second kind of point.
            deinit { EC_POINT_clear_free(pointer) }
        }

        /// A secret scalar as an OpenSSL BIGNUM: allocated as secure memory, flagged for
        /// constant-time arithmetic, and wiped (`BN_clear_free`) on release. Read-only once made.
        final class BigNumber: @unchecked Sendable {
            let pointer: OpaquePointer

            /// Zero, to be filled by a generator.
            init() throws {
                guard let pointer = BN_secure_new() else { throw OpenSSL.failure("BN_secure_new") }
                BN_set_flags(pointer, BN_FLG_CONSTTIME)
                self.pointer = pointer
            }

            /// The big-endian `bytes`.
            convenience init(_ bytes: SecretBytes) throws {
                try self.init()
                guard bytes.withUnsafeBytes({ BN_bin2bn($0.bytePointer, Int32($0.count), pointer) }) != nil else {
                    throw OpenSSL.failure("BN_bin2bn")
                }
            }

            /// The scalar as exactly 32 big-endian bytes, leading zeros kept.
            func exported() throws -> SecretBytes {
                var written: Int32 = 0
                let bytes = SecretBytes(count: scalarByteCount) { (out: UnsafeMutablePointer<UInt8>) in
                    written = BN_bn2binpad(pointer, out, Int32(scalarByteCount))
                }
                guard written == scalarByteCount else { throw OpenSSL.failure("BN_bn2binpad") }
                return bytes
            }

            deinit { BN_clear_free(pointer) }
        }

        /// A `BN_CTX` for one computation's temporaries, in secure memory and wiped when freed.
        final class ScratchContext {
            let pointer: OpaquePointer

            init() throws {
                guard let pointer = BN_CTX_secure_new() else { throw OpenSSL.failure("BN_CTX_secure_new") }
                BN_CTX_start(pointer)
                self.pointer = pointer
            }

            deinit {
                BN_CTX_end(pointer)
                BN_CTX_free(pointer)
            }
        }
    }
#endif
