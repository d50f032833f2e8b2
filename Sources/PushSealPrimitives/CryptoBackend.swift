/// Which implementation of the primitives this build links, for `--version`, the bench and
/// diagnostics.
package enum CryptoBackend {
    /// `libsodium + OpenSSL`, `CryptoKit`, or on Linux `CryptoKit API (stand-in on libsodium + OpenSSL)`:
    /// the CryptoKit backend's source compiled against `CryptoKitStandIn`, not Apple's implementation.
    package static var name: String {
        #if PUSHSEAL_CRYPTOKIT
            #if canImport(CryptoKit)
                "CryptoKit"
            #else
                "CryptoKit API (stand-in on libsodium + OpenSSL)"
            #endif
        #else
            "libsodium + OpenSSL"
        #endif
    }
}
