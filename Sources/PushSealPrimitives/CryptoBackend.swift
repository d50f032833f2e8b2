/// Which implementation of the primitives this build links, for `--version`, the bench and
/// diagnostics.
package enum CryptoBackend {
    /// `libsodium + OpenSSL`, `CryptoKit`, or `CryptoKit API (swift-crypto)` on Linux.
    package static var name: String {
        #if PUSHSEAL_CRYPTOKIT
            #if canImport(CryptoKit)
                "CryptoKit"
            #else
                "CryptoKit API (swift-crypto)"
            #endif
        #else
            "libsodium + OpenSSL"
        #endif
    }
}
