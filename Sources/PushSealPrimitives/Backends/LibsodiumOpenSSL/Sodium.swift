#if !PUSHSEAL_CRYPTOKIT
    internal import CSodium

    /// One-time libsodium initialisation, shared by every primitive that calls into it.
    enum Sodium {
        /// Runs `sodium_init` exactly once per process; Swift guarantees lazy globals are initialised once.
        private static let initialised: Bool = sodium_init() >= 0

        /// Makes sure libsodium is ready; stops the process if it cannot be (no safe way to continue).
        static func ensureInitialised() {
            precondition(initialised, "libsodium could not be initialised")
        }
    }
#endif
