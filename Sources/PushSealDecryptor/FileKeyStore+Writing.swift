public import PushSealCore

extension FileKeyStore {
    /// Creates the store: a 0700 directory holding an empty 0600 key file. A no-op on an existing
    /// store; refused on a non-empty directory that is not a store.
    @discardableResult
    public static func initialize(directory: String) throws -> FileKeyStore {
        let store = FileKeyStore(directory: directory)
        do {
            if FileSystem.isDirectory(store.directory) {
                if (try FileSystem.mode(store.keysPath)) != nil {
                    _ = try store.entries()
                    return store
                }
                let contents = try FileSystem.contents(store.directory)
                guard contents.isEmpty else {
                    throw PushSealError(
                        .keyStoreUnavailable,
                        "\(store.directory) is not empty and is not a key store (it holds \(contents.count) entries)")
                }
            } else {
                try FileSystem.makeDirectory(store.directory, mode: 0o700)
            }
            try FileSystem.withExclusiveLock(store.lockPath) {
                if (try FileSystem.mode(store.keysPath)) == nil {
                    try FileSystem.writeAtomically(serialize([]), to: store.keysPath, mode: 0o600)
                }
            }
        } catch let failure as FileSystem.Failure {
            throw PushSealError(.keyStoreUnavailable, "cannot create the key store: \(failure)")
        }
        return store
    }

    /// Adds a device private key. The first device key becomes current.
    /// - Throws: `PushSealError.Code.invalidKey` when a device key with the same kid exists.
    @discardableResult
    public func importDeviceKey(_ key: PrivateKey) throws -> StoredKey {
        try update { entries in
            guard !entries.contains(where: { $0.role == .device && $0.kid == key.kid }) else {
                throw PushSealError(.invalidKey, "the store already has a device key with kid \"\(key.kid)\"")
            }
            let entry = StoredKey(
                kid: key.kid, suite: key.suite, role: .device,
                current: !entries.contains { $0.role == .device && $0.current }, created: StoredKey.timestamp(),
                jwk: key.privateJWK)
            entries.append(entry)
            return entry
        }
    }

    /// Adds a trusted sender public key: from then on the store requires auth mode from a
    /// trusted sender for that key's suite.
    @discardableResult
    public func importSender(_ key: PublicKey) throws -> StoredKey {
        try update { entries in
            guard !entries.contains(where: { $0.role == .sender && $0.kid == key.kid }) else {
                throw PushSealError(.invalidKey, "the store already trusts a sender with kid \"\(key.kid)\"")
            }
            let entry = StoredKey(
                kid: key.kid, suite: key.suite, role: .sender, current: false, created: StoredKey.timestamp(),
                jwk: key.jwk)
            entries.append(entry)
            return entry
        }
    }

    /// Generates a device key of `suite` (the current key's suite, else X25519), makes it current
    /// and keeps the older keys, which still open pushes already in flight.
    /// - Returns: the new key; the server needs its public half (or, for a shared key, itself).
    public func rotate(suite: EnvelopeSuite? = nil) throws -> PrivateKey {
        try update { entries in
            let suite = suite ?? entries.first { $0.role == .device && $0.current }?.suite ?? .x25519
            var key = try PrivateKey.generate(suite: suite)
            while entries.contains(where: { $0.kid == key.kid }) { key = try PrivateKey.generate(suite: suite) }
            for index in entries.indices where entries[index].role == .device { entries[index].current = false }
            entries.append(
                StoredKey(
                    kid: key.kid, suite: suite, role: .device, current: true, created: StoredKey.timestamp(),
                    jwk: key.privateJWK))
            return key
        }
    }

    /// Removes the key `kid` (device or sender).
    /// - Throws: `PushSealError.Code.invalidKey` for an unknown kid or the current device key.
    public func retire(kid: String) throws {
        try update { entries in
            guard let index = entries.firstIndex(where: { $0.kid == kid }) else {
                throw PushSealError(.invalidKey, "the store has no key with kid \"\(kid)\"")
            }
            guard !(entries[index].role == .device && entries[index].current) else {
                throw PushSealError(
                    .invalidKey, "\"\(kid)\" is the current device key: rotate first, then retire it")
            }
            entries.remove(at: index)
        }
    }

    /// Deletes temporary key files that a writer killed before its rename left behind. Only a
    /// writer holding the lock creates them, so under the lock every one of them is abandoned.
    private func removeAbandonedTemporaryFiles() throws {
        for name in try FileSystem.contents(directory) where name.hasPrefix(".keys.json.") && name.hasSuffix(".tmp") {
            FileSystem.remove("\(directory)/\(name)")
        }
    }

    /// Reads, changes and atomically rewrites the key file under the writers' lock.
    private func update<Result>(_ change: (inout [StoredKey]) throws -> Result) throws -> Result {
        do {
            return try FileSystem.withExclusiveLock(lockPath) {
                try removeAbandonedTemporaryFiles()
                var entries = try self.entries()
                let result = try change(&entries)
                var bytes = Self.serialize(entries)
                defer { SecureMemory.wipe(&bytes) }
                try FileSystem.writeAtomically(bytes, to: keysPath, mode: 0o600)
                return result
            }
        } catch let failure as FileSystem.Failure {
            throw PushSealError(.keyStoreUnavailable, "cannot update the key store: \(failure)")
        }
    }
}
