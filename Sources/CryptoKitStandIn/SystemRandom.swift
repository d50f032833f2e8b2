internal import CSodium

/// Random bytes from libsodium's generator (the system's CSPRNG), for nonces and fresh keys.
enum SystemRandom {
    /// `count` random bytes.
    static func bytes(_ count: Int) -> [UInt8] {
        Sodium.ready()
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return bytes
    }
}

/// libsodium's one-time initialisation.
enum Sodium {
    private static let initialised: Bool = sodium_init() >= 0

    /// Initialises libsodium once per process; stops the process if it cannot be.
    static func ready() {
        precondition(initialised, "libsodium could not be initialised")
    }
}
