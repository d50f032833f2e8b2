#if PUSHSEAL_CRYPTOKIT
    internal import PushSealPOSIX

    /// Wiping, constant-time comparison and random bytes, from the platform.
    enum SecureMemory {
        /// Zeroes `count` bytes in a way the optimiser cannot remove (`explicit_bzero`, `memset_s`).
        static func zero(_ bytes: UnsafeMutableRawPointer, _ count: Int) {
            Descriptor.wipe(bytes, count)
        }

        /// True when the `count` bytes at `lhs` and `rhs` are equal, in time independent of
        /// where they differ: every byte is compared, the differences OR-ed together.
        @inline(never)
        static func equal(_ lhs: UnsafeRawPointer, _ rhs: UnsafeRawPointer, _ count: Int) -> Bool {
            var difference: UInt8 = 0
            for index in 0..<count {
                difference |=
                    lhs.load(fromByteOffset: index, as: UInt8.self)
                    ^ rhs.load(fromByteOffset: index, as: UInt8.self)
            }
            return difference == 0
        }

        /// Fills `count` bytes from the system's secure generator (`SystemRandomNumberGenerator`:
        /// `getrandom` on Linux, `arc4random_buf` on Apple platforms).
        static func fillRandom(_ bytes: UnsafeMutableRawPointer, _ count: Int) {
            var generator = SystemRandomNumberGenerator()
            var offset = 0
            while offset < count {
                var word = generator.next()
                let chunk = min(8, count - offset)
                withUnsafeBytes(of: &word) {
                    if let source = $0.baseAddress { (bytes + offset).copyMemory(from: source, byteCount: chunk) }
                }
                word = 0
                offset += chunk
            }
        }
    }

    /// Random bytes that need not be secret once used (nonces, random key ids).
    package enum SecureRandom {
        /// `count` bytes from the system's secure generator.
        package static func bytes(_ count: Int) -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: count)
            bytes.withUnsafeMutableBytes { if let base = $0.baseAddress { SecureMemory.fillRandom(base, count) } }
            return bytes
        }
    }
#endif
