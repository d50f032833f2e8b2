#if !PUSHSEAL_CRYPTOKIT
    internal import COpenSSL

    /// Names and string values of OpenSSL parameters as C strings with static lifetime.
    ///
    /// An `OSSL_PARAM` (and `OSSL_PARAM_BLD`) keeps pointers to its name and string value, so both
    /// must outlive the call; Swift's implicit `String` to pointer bridging would leave them dangling.
    /// `StaticString` literals are NUL-terminated and live for the whole process.
    enum OSSLString {
        static var digest: UnsafePointer<CChar> { cString("digest") }
        static var mode: UnsafePointer<CChar> { cString("mode") }
        static var key: UnsafePointer<CChar> { cString("key") }
        static var salt: UnsafePointer<CChar> { cString("salt") }
        static var info: UnsafePointer<CChar> { cString("info") }
        static var group: UnsafePointer<CChar> { cString("group") }
        static var publicKey: UnsafePointer<CChar> { cString("pub") }
        static var privateKey: UnsafePointer<CChar> { cString("priv") }
        static var sha256: UnsafePointer<CChar> { cString("SHA256") }
        static var p256: UnsafePointer<CChar> { cString("prime256v1") }

        private static func cString(_ name: StaticString) -> UnsafePointer<CChar> {
            UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
        }
    }

    extension UnsafeRawBufferPointer {
        /// An octet-string parameter over these bytes, which must stay valid while the parameter is used.
        func octetParameter(_ name: UnsafePointer<CChar>) -> OSSL_PARAM {
            OSSL_PARAM_construct_octet_string(name, UnsafeMutableRawPointer(mutating: baseAddress), count)
        }
    }
#endif
