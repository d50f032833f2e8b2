#if PUSHSEAL_CRYPTOKIT
    /// HChaCha20 (draft-irtf-cfrg-xchacha §2.2): the subkey that turns ChaCha20-Poly1305 into
    /// XChaCha20-Poly1305, which CryptoKit lacks.
    ///
    /// The ChaCha20 block function's 20 rounds over the constants, the key and the first 16
    /// bytes of the 24-byte nonce, without the final addition; the subkey is the first and last
    /// rows. Proven by the draft's vector and by Wycheproof's XChaCha20-Poly1305 file.
    enum HChaCha20 {
        /// The 32-byte subkey for `key` (32 bytes) and `nonce` (the first 16 bytes of an
        /// XChaCha20 nonce).
        static func subkey(key: SecretBytes, nonce: UnsafeRawBufferPointer) -> SecretBytes {
            precondition(key.count == 32 && nonce.count == 16, "HChaCha20 takes a 32-byte key and a 16-byte nonce")
            var state = [UInt32](repeating: 0, count: 16)
            defer {
                state.withUnsafeMutableBytes { if let base = $0.baseAddress { SecureMemory.zero(base, $0.count) } }
            }
            state[0] = 0x6170_7865
            state[1] = 0x3320_646e
            state[2] = 0x7962_2d32
            state[3] = 0x6b20_6574
            key.withUnsafeBytes { bytes in
                for word in 0..<8 { state[4 + word] = littleEndianWord(bytes, at: word * 4) }
            }
            for word in 0..<4 { state[12 + word] = littleEndianWord(nonce, at: word * 4) }
            for _ in 0..<10 {
                quarterRound(&state, 0, 4, 8, 12)
                quarterRound(&state, 1, 5, 9, 13)
                quarterRound(&state, 2, 6, 10, 14)
                quarterRound(&state, 3, 7, 11, 15)
                quarterRound(&state, 0, 5, 10, 15)
                quarterRound(&state, 1, 6, 11, 12)
                quarterRound(&state, 2, 7, 8, 13)
                quarterRound(&state, 3, 4, 9, 14)
            }
            return SecretBytes(
                count: 32,
                filling: { out in
                    for (slot, word) in [0, 1, 2, 3, 12, 13, 14, 15].enumerated() {
                        for byte in 0..<4 {
                            out[slot * 4 + byte] = UInt8(truncatingIfNeeded: state[word] >> (8 * byte))
                        }
                    }
                })
        }

        private static func littleEndianWord(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
            UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
                | UInt32(bytes[offset + 3]) << 24
        }

        private static func quarterRound(_ state: inout [UInt32], _ a: Int, _ b: Int, _ c: Int, _ d: Int) {
            state[a] &+= state[b]
            state[d] = (state[d] ^ state[a]).rotatedLeft(by: 16)
            state[c] &+= state[d]
            state[b] = (state[b] ^ state[c]).rotatedLeft(by: 12)
            state[a] &+= state[b]
            state[d] = (state[d] ^ state[a]).rotatedLeft(by: 8)
            state[c] &+= state[d]
            state[b] = (state[b] ^ state[c]).rotatedLeft(by: 7)
        }
    }

    extension UInt32 {
        fileprivate func rotatedLeft(by count: UInt32) -> UInt32 {
            self << count | self >> (32 - count)
        }
    }
#endif
