internal import COpenSSL

/// The OpenSSL objects the stand-in fetches once per process (fetching is OpenSSL 3's costly step).
enum OpenSSLAlgorithms {
    nonisolated(unsafe) static let sha256: OpaquePointer? = EVP_MD_fetch(nil, "SHA256", nil)
    nonisolated(unsafe) static let hmac: OpaquePointer? = EVP_MAC_fetch(nil, "HMAC", nil)
    nonisolated(unsafe) static let hkdf: OpaquePointer? = EVP_KDF_fetch(nil, "HKDF", nil)
    nonisolated(unsafe) static let aes128GCM: OpaquePointer? = EVP_CIPHER_fetch(nil, "AES-128-GCM", nil)
    nonisolated(unsafe) static let aes192GCM: OpaquePointer? = EVP_CIPHER_fetch(nil, "AES-192-GCM", nil)
    nonisolated(unsafe) static let aes256GCM: OpaquePointer? = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil)

    /// The error code at the head of OpenSSL's queue, as CryptoKit reports an underlying failure;
    /// the queue is emptied so that no later call sees a stale error.
    static func failure() -> CryptoKitError {
        let code = ERR_peek_error()
        ERR_clear_error()
        return .underlyingCoreCryptoError(error: Int32(truncatingIfNeeded: code))
    }
}

/// A hash function OpenSSL computes: how the stand-in's generic `HMAC` and `HKDF` find the digest
/// for their `H`. Not part of CryptoKit's API.
protocol OpenSSLHashFunction {
    /// The `EVP_MD` of the function.
    static var digest: OpaquePointer? { get }
    /// Its name in OpenSSL's parameters (`"SHA256"`), a NUL-terminated static string.
    static var digestName: StaticString { get }
}
