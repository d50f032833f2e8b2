#if PUSHSEAL_CRYPTOKIT
    // The CryptoKit backend: Apple's CryptoKit on Apple platforms or, on Linux with
    // PUSHSEAL_CRYPTOKIT=1, the stand-in module `CryptoKitStandIn` (CryptoKit's API, on libsodium
    // and OpenSSL), so that the same source is compiled and tested here. CryptoKit's types are reached through
    // `Kit`, because this module has types of the same names (`P256`, `SHA256`, `HKDF`, `HMAC`).
    #if canImport(CryptoKit)
        import CryptoKit

        /// CryptoKit's types, as this backend uses them.
        enum Kit {
            typealias AES = CryptoKit.AES
            typealias ChaChaPoly = CryptoKit.ChaChaPoly
            typealias Curve25519 = CryptoKit.Curve25519
            typealias HKDF = CryptoKit.HKDF
            typealias HMAC = CryptoKit.HMAC
            typealias P256 = CryptoKit.P256
            typealias SHA256 = CryptoKit.SHA256
            typealias SymmetricKey = CryptoKit.SymmetricKey
        }
    #else
        import CryptoKitStandIn

        /// CryptoKit's types (from the Linux stand-in), as this backend uses them.
        enum Kit {
            typealias AES = CryptoKitStandIn.AES
            typealias ChaChaPoly = CryptoKitStandIn.ChaChaPoly
            typealias Curve25519 = CryptoKitStandIn.Curve25519
            typealias HKDF = CryptoKitStandIn.HKDF
            typealias HMAC = CryptoKitStandIn.HMAC
            typealias P256 = CryptoKitStandIn.P256
            typealias SHA256 = CryptoKitStandIn.SHA256
            typealias SymmetricKey = CryptoKitStandIn.SymmetricKey
        }
    #endif

    extension SecretBytes {
        /// The bytes as a CryptoKit key (CryptoKit keeps its own wiped copy).
        var symmetricKey: Kit.SymmetricKey {
            withUnsafeBytes { Kit.SymmetricKey(data: $0) }
        }
    }
#endif
