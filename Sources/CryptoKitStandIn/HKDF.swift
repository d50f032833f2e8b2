internal import COpenSSL
public import Foundation

/// HKDF (RFC 5869), as CryptoKit's `HKDF<H>`: its extract and expand steps, on OpenSSL's `EVP_KDF`.
public struct HKDF<H: HashFunction>: Sendable {
    /// HKDF-Extract: the pseudorandom key of `inputKeyMaterial` under `salt` (none means zeros).
    public static func extract<Salt: DataProtocol>(inputKeyMaterial: SymmetricKey, salt: Salt?)
        -> HashedAuthenticationCode<H>
    {
        let salt = salt.map { Array($0) } ?? []
        return inputKeyMaterial.withUnsafeBytes { ikm in
            salt.withUnsafeBytes { salt in
                HashedAuthenticationCode(
                    storage: derive(
                        mode: EVP_KDF_HKDF_MODE_EXTRACT_ONLY, key: ikm, salt: salt, info: nil, count: H.byteCount))
            }
        }
    }

    /// HKDF-Expand: `outputByteCount` bytes from `pseudoRandomKey` and `info`.
    public static func expand<PRK: ContiguousBytes, Info: DataProtocol>(
        pseudoRandomKey: PRK, info: Info?, outputByteCount: Int
    ) -> SymmetricKey {
        precondition(outputByteCount > 0 && outputByteCount <= 255 * H.byteCount, "HKDF output length out of range")
        let info = info.map { Array($0) } ?? []
        return pseudoRandomKey.withUnsafeBytes { prk in
            info.withUnsafeBytes { info in
                SymmetricKey(
                    storage: derive(
                        mode: EVP_KDF_HKDF_MODE_EXPAND_ONLY, key: prk, salt: nil, info: info, count: outputByteCount))
            }
        }
    }

    private static func derive(
        mode: Int32, key: UnsafeRawBufferPointer, salt: UnsafeRawBufferPointer?, info: UnsafeRawBufferPointer?,
        count: Int
    ) -> SecureBytes {
        guard let kdf = OpenSSLAlgorithms.hkdf, let context = EVP_KDF_CTX_new(kdf) else {
            preconditionFailure("HKDF is unavailable from OpenSSL")
        }
        defer { EVP_KDF_CTX_free(context) }
        var mode = mode
        return withUnsafeMutablePointer(to: &mode) { mode in
            var parameters = [
                OSSL_PARAM_construct_utf8_string(
                    OpenSSLParameters.name("digest"), OpenSSLParameters.digestName(of: H.self), 0),
                OSSL_PARAM_construct_int(OpenSSLParameters.name("mode"), mode),
                OpenSSLParameters.octets("key", key),
            ]
            if let salt, salt.count > 0 { parameters.append(OpenSSLParameters.octets("salt", salt)) }
            if let info, info.count > 0 { parameters.append(OpenSSLParameters.octets("info", info)) }
            parameters.append(OSSL_PARAM_construct_end())
            return SecureBytes(count: count) { out in
                let output = out.mutableBytePointer
                precondition(EVP_KDF_derive(context, output, count, &parameters) == 1, "HKDF failed in OpenSSL")
            }
        }
    }
}

extension SymmetricKey {
    init(storage: SecureBytes) {
        self.storage = storage
    }
}
