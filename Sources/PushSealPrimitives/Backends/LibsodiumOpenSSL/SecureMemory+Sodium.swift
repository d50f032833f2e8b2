#if !PUSHSEAL_CRYPTOKIT
    internal import CSodium

    /// Wiping, constant-time comparison and random bytes, from libsodium.
    enum SecureMemory {
        /// Zeroes `count` bytes in a way the optimiser cannot remove (`sodium_memzero`).
        static func zero(_ bytes: UnsafeMutableRawPointer, _ count: Int) {
            sodium_memzero(bytes, count)
        }

        /// True when the `count` bytes at `lhs` and `rhs` are equal, in time independent of where
        /// they differ (`sodium_memcmp`).
        static func equal(_ lhs: UnsafeRawPointer, _ rhs: UnsafeRawPointer, _ count: Int) -> Bool {
            Sodium.ensureInitialised()
            return sodium_memcmp(lhs, rhs, count) == 0
        }

        /// Fills `count` bytes from the operating system's generator (`randombytes_buf`).
        static func fillRandom(_ bytes: UnsafeMutableRawPointer, _ count: Int) {
            Sodium.ensureInitialised()
            randombytes_buf(bytes, count)
        }
    }
#endif
