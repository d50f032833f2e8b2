#if PUSHSEAL_CRYPTOKIT
    // The CryptoKit backend: Apple's CryptoKit on Apple platforms, or its API compiled for Linux
    // (swift-crypto's `Crypto`, with PUSHSEAL_CRYPTOKIT=1). CryptoKit's types are reached through
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
        import Crypto

        /// CryptoKit's types (from swift-crypto), as this backend uses them.
        enum Kit {
            typealias AES = Crypto.AES
            typealias ChaChaPoly = Crypto.ChaChaPoly
            typealias Curve25519 = Crypto.Curve25519
            typealias HKDF = Crypto.HKDF
            typealias HMAC = Crypto.HMAC
            typealias P256 = Crypto.P256
            typealias SHA256 = Crypto.SHA256
            typealias SymmetricKey = Crypto.SymmetricKey
        }
    #endif

    extension SecretBytes {
        /// The bytes as a CryptoKit key (CryptoKit keeps its own wiped copy).
        var symmetricKey: Kit.SymmetricKey {
            withUnsafeBytes { Kit.SymmetricKey(data: $0) }
        }
    }
#endif
