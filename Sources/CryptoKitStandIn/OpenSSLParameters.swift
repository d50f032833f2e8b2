internal import COpenSSL

/// C strings for OpenSSL parameters, which must outlive the call that reads them.
enum OpenSSLParameters {
    /// The OpenSSL name of a stand-in hash function's digest, as a static C string.
    static func digestName<H: HashFunction>(of hash: H.Type) -> UnsafeMutablePointer<CChar> {
        guard let named = hash as? any OpenSSLHashFunction.Type else {
            preconditionFailure("the CryptoKit stand-in implements SHA-256 only")
        }
        return name(named.digestName)
    }

    /// A parameter's name, or a string value, as a C string with static lifetime (Swift's implicit
    /// bridging of a `String` would leave the parameter pointing at a freed temporary).
    static func name(_ text: StaticString) -> UnsafeMutablePointer<CChar> {
        UnsafeMutableRawPointer(mutating: text.utf8Start).assumingMemoryBound(to: CChar.self)
    }

    /// An octet-string parameter over `bytes`, which must stay valid while it is used; an empty
    /// buffer gets a valid pointer, since OpenSSL treats NULL as "not set".
    static func octets(_ name: StaticString, _ bytes: UnsafeRawBufferPointer) -> OSSL_PARAM {
        OSSL_PARAM_construct_octet_string(
            self.name(name), UnsafeMutableRawPointer(mutating: bytes.bytePointer), bytes.count)
    }
}
