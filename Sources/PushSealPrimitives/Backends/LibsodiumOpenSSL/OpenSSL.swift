#if !PUSHSEAL_CRYPTOKIT
    internal import COpenSSL

    /// Shared OpenSSL plumbing: error reporting and algorithm objects fetched once per process.
    ///
    /// Fetching (`EVP_CIPHER_fetch`, `EVP_KDF_fetch`, …) is the costly part of every OpenSSL 3 call;
    /// fetched objects are immutable and safe to share between threads, so they are fetched lazily
    /// once and kept for the life of the process.
    enum OpenSSL {
        nonisolated(unsafe) static let aes128GCM: OpaquePointer? = EVP_CIPHER_fetch(nil, "AES-128-GCM", nil)
        nonisolated(unsafe) static let aes256GCM: OpaquePointer? = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil)
        nonisolated(unsafe) static let sha256: OpaquePointer? = EVP_MD_fetch(nil, "SHA256", nil)
        nonisolated(unsafe) static let hkdf: OpaquePointer? = EVP_KDF_fetch(nil, "HKDF", nil)
        nonisolated(unsafe) static let hmac: OpaquePointer? = EVP_MAC_fetch(nil, "HMAC", nil)

        /// Drains OpenSSL's error queue into a ``CryptoFailure/library(_:)`` naming `operation`.
        ///
        /// The queue is per thread and must be emptied so that a later call does not report a stale error.
        static func failure(_ operation: String) -> CryptoFailure {
            var details: [String] = []
            while true {
                let code = ERR_get_error()
                if code == 0 { break }
                var buffer = [CChar](repeating: 0, count: 256)
                ERR_error_string_n(code, &buffer, buffer.count)
                details.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
            return .library(details.isEmpty ? operation : "\(operation): \(details.joined(separator: "; "))")
        }

        /// Empties the error queue after an expected failure (an invalid point, a bad tag).
        static func clearErrors() {
            ERR_clear_error()
        }

        /// Unwraps a fetched algorithm, or reports that this OpenSSL build lacks it.
        static func require(_ algorithm: OpaquePointer?, _ name: String) throws -> OpaquePointer {
            guard let algorithm else { throw failure("OpenSSL provides no \(name)") }
            return algorithm
        }
    }
#endif
