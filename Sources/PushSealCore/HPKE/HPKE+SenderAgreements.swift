internal import PushSealPrimitives
internal import Synchronization

extension HPKE {
    /// Auth mode's static Diffie-Hellman, DH(skS, pkR), kept per sender and recipient key, so that
    /// sealing again for a recipient costs two scalar multiplications instead of three: the
    /// ephemeral key and DH(skE, pkR) are new for every message, DH(skS, pkR) never changes.
    ///
    /// What it holds is as secret as the sender key, within one recipient: with it, anyone could
    /// seal as the sender to that recipient. It lives in memory only, in ``SecretBytes`` (wiped
    /// when released), never written anywhere. Past ``capacity`` keys, an arbitrary one is dropped
    /// for each new one, so the memory it takes is bounded: some 270 bytes a pair of X25519 keys,
    /// 320 a pair of P-256 keys, measured. The keys it is looked up by are public keys, so a
    /// lookup's timing reveals nothing secret.
    package final class SenderAgreements: Sendable {
        /// The most agreements it holds.
        package let capacity: Int
        private let state = Mutex(State())

        private struct State {
            /// By the sender's public key followed by the recipient's, as serialized.
            var secrets: [[UInt8]: SecretBytes] = [:]
            var computed = 0
            var reused = 0
        }

        /// An empty store of at most `capacity` agreements (at least one).
        package init(capacity: Int) {
            self.capacity = max(capacity, 1)
        }

        /// The agreements held now.
        package var count: Int { state.withLock { $0.secrets.count } }

        /// The agreements computed so far: one per first seal for a pair of keys, and once more
        /// for a pair whose agreement was dropped.
        package var computed: Int { state.withLock { $0.computed } }

        /// The seals that found their agreement held, and so skipped a scalar multiplication.
        package var reused: Int { state.withLock { $0.reused } }

        /// DH(`sender`, `recipient`): the one held, or computed now and kept. A recipient key the
        /// agreement refuses (a point of small order) throws, and nothing is kept.
        func secret(sender: PrivateKey, recipient: PublicKey) throws -> SecretBytes {
            let key = sender.publicKey.serialized + recipient.serialized
            let known = state.withLock { state in
                let known = state.secrets[key]
                if known != nil { state.reused += 1 }
                return known
            }
            if let known { return known }
            // Computed outside the lock: two threads sealing for a new recipient at once may both
            // compute it, and the second result replaces an equal first.
            let secret = try sender.agree(with: recipient)
            state.withLock { state in
                state.computed += 1
                if state.secrets[key] == nil, state.secrets.count >= capacity {
                    state.secrets.remove(at: state.secrets.startIndex)
                }
                state.secrets[key] = secret
            }
            return secret
        }
    }
}
