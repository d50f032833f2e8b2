internal import COpenSSL
public import Foundation

/// HMAC (RFC 2104), as CryptoKit's `HMAC<H>`: the one-shot form, on OpenSSL's `EVP_MAC`.
public struct HMAC<H: HashFunction>: Sendable {
    /// The tag type.
    public typealias MAC = HashedAuthenticationCode<H>

    /// The tag of `data` under `key`.
    public static func authenticationCode<D: DataProtocol>(for data: D, using key: SymmetricKey) -> MAC {
        key.withUnsafeBytes { key in
            withContiguousBytes(of: data) { message in
                MAC(storage: OpenSSLMAC.tag(digestOf: H.self, key: key, message: message))
            }
        }
    }
}

/// An HMAC tag, as CryptoKit's `HashedAuthenticationCode<H>`; HKDF's extract step returns one as
/// its pseudorandom key, so it is held like a key and wiped when released.
public struct HashedAuthenticationCode<H: HashFunction>: Sequence, ContiguousBytes, Sendable {
    let storage: SecureBytes

    /// The number of bytes, `H.byteCount`.
    public var byteCount: Int { storage.count }

    /// Iterates over the tag's bytes.
    public func makeIterator() -> IndexingIterator<[UInt8]> { storage.withUnsafeBytes { Array($0) }.makeIterator() }

    /// Calls `body` with the tag's bytes.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try storage.withUnsafeBytes(body)
    }
}

/// OpenSSL's HMAC, for the digest of a stand-in hash function.
enum OpenSSLMAC {
    /// HMAC-`H`(`key`, `message`).
    static func tag<H: HashFunction>(
        digestOf hash: H.Type, key: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer
    )
        -> SecureBytes
    {
        let name = OpenSSLParameters.digestName(of: hash)
        guard let mac = OpenSSLAlgorithms.hmac, let context = EVP_MAC_CTX_new(mac) else {
            preconditionFailure("HMAC is unavailable from OpenSSL")
        }
        defer { EVP_MAC_CTX_free(context) }
        var parameters = [
            OSSL_PARAM_construct_utf8_string(OpenSSLParameters.name("digest"), name, 0), OSSL_PARAM_construct_end(),
        ]
        return SecureBytes(count: H.byteCount) { out in
            var written = 0
            let succeeded =
                EVP_MAC_init(context, key.bytePointer, key.count, &parameters) == 1
                && EVP_MAC_update(context, message.bytePointer, message.count) == 1
                && EVP_MAC_final(context, out.mutableBytePointer, &written, out.count)
                    == 1
            precondition(succeeded && written == H.byteCount, "HMAC failed in OpenSSL")
        }
    }
}
