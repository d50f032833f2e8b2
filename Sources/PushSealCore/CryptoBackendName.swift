internal import PushSealPrimitives

/// The crypto backend this build of PushSeal uses: `libsodium + OpenSSL` (Linux), `CryptoKit`
/// (Apple platforms), or `CryptoKit API (stand-in on libsodium + OpenSSL)` (Linux, built with
/// PUSHSEAL_CRYPTOKIT=1).
public let cryptoBackendName = CryptoBackend.name
