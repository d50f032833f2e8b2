#if !PUSHSEAL_CRYPTOKIT
    internal import CSodium

    /// Random bytes that need not be secret once used (nonces, random key ids), from libsodium.
    package enum SecureRandom {
        /// `count` bytes from the operating system's generator.
        package static func bytes(_ count: Int) -> [UInt8] {
            Sodium.ensureInitialised()
            var bytes = [UInt8](repeating: 0, count: count)
            randombytes_buf(&bytes, count)
            return bytes
        }
    }
#endif
