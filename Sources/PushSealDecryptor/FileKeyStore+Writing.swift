public import PushSealCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension FileKeyStore {
    /// Creates the store if it is not one yet: a 0700 directory holding an empty 0600 key file.
    ///
    /// Idempotent and safe to race: any number of processes may call it at once, and exactly one
    /// of them creates the key file. An existing empty directory with a loose mode is made 0700;
    /// an existing store with a loose mode is refused (its keys may have been exposed), naming
    /// the `chmod`; a non-empty directory that is not a store is refused.
    /// - Returns: the store, and whether this call created its key file.
    public static func create(directory: String) throws -> (store: FileKeyStore, created: Bool) {
        let store = FileKeyStore(directory: directory)
        do {
            if mkdir(store.directory, 0o700) != 0 && errno != EEXIST {
                throw ContainerFailure.system("mkdir", store.directory, errno)
            }
            StoreProtection.apply(to: store.directory)
            let opened = try openForCreation(store)
            let created = try opened.withExclusiveLock(lockName) { () throws -> Bool in
                if opened.contains(keysName) {
                    _ = try store.contents(in: opened)
                    return false
                }
                let foreign = try opened.names().filter { $0 != lockName && !isAbandonedTemporaryFile($0) }
                guard foreign.isEmpty else {
                    throw PushSealError(
                        .keyStoreUnavailable,
                        "\(store.directory) is not empty and is not a key store (it holds \(foreign.count) entries)")
                }
                try opened.replace(keysName, with: serialize(Contents(policy: .allowUnsealed, entries: [])))
                return true
            }
            return (store, created)
        } catch let failure as ContainerFailure {
            throw store.unavailable(failure, "cannot create the key store")
        }
    }

    /// Opens a directory for `create`: a loose mode is tightened while it holds nothing but the
    /// lock; a loose directory with something else in it and no key file is named for what it
    /// is, not a key store.
    private static func openForCreation(_ store: FileKeyStore) throws -> StoreDirectory {
        let result = Result { () throws(ContainerFailure) in
            try StoreDirectory(path: store.directory, tightenIfEmptyBut: [lockName])
        }
        if case .failure(let failure) = result, !failure.isMissing, access(store.keysPath, F_OK) != 0 {
            throw PushSealError(
                .keyStoreUnavailable, "\(store.directory) is not empty and is not a key store (\(failure.problem))")
        }
        return try result.get()
    }

    /// Creates the store if it is not one yet; see ``create(directory:)``.
    @discardableResult
    public static func initialize(directory: String) throws -> FileKeyStore {
        try create(directory: directory).store
    }

    /// Adds a device private key. The first device key becomes current.
    /// - Throws: `PushSealError.Code.invalidKey` when any key of the store has the same kid:
    ///   kids are unique across roles, so that `retire` can never remove the wrong key.
    @discardableResult
    public func importDeviceKey(_ key: PrivateKey) throws -> StoredKey {
        try update { contents in
            try Self.checkUnused(key.kid, in: contents.entries)
            let entry = StoredKey(
                kid: key.kid, suite: key.suite, role: .device,
                current: !contents.entries.contains { $0.role == .device && $0.current },
                created: StoredKey.timestamp(), jwk: key.privateJWK)
            contents.entries.append(entry)
            return entry
        }
    }

    /// Adds a trusted sender public key: from then on the store requires auth mode from a
    /// trusted sender for that key's suite. Importing a sender key the store already trusts
    /// changes nothing and returns its entry, so that a setup script can run again.
    /// - Throws: `PushSealError.Code.invalidKey` when another key of the store has the same kid.
    @discardableResult
    public func importSender(_ key: PublicKey) throws -> StoredKey {
        try updateIfChanged { contents in
            if let trusted = contents.entries.first(where: { $0.kid == key.kid && $0.role == .sender }),
                let stored = try? PublicKey(jwk: trusted.jwk),
                stored.suite == key.suite && stored.rawRepresentation == key.rawRepresentation
            {
                return (trusted, changed: false)
            }
            try Self.checkUnused(key.kid, in: contents.entries)
            let entry = StoredKey(
                kid: key.kid, suite: key.suite, role: .sender, current: false, created: StoredKey.timestamp(),
                jwk: key.jwk)
            contents.entries.append(entry)
            return (entry, changed: true)
        }
    }

    /// Generates a device key of `suite` (the current key's suite, else X25519), makes it current
    /// and keeps the older keys, which still open pushes already in flight.
    ///
    /// In three steps, so that a key is current only once the server can have it, and a key
    /// that was handed out is never lost: the key is stored, not current; `deliver` hands it
    /// out; then it is made current. When `deliver` throws, the key is removed again. A process
    /// killed between the steps leaves the key stored and not current.
    /// - Parameters:
    ///   - suite: the new key's suite; nil keeps the current key's (X25519 in an empty store).
    ///   - deliver: gives the server the new key (its public half, or a shared key itself);
    ///     called outside the writers' lock.
    /// - Returns: the new key.
    @discardableResult
    public func rotate(suite: EnvelopeSuite? = nil, deliver: (PrivateKey) throws -> Void = { _ in }) throws
        -> PrivateKey
    {
        let key = try stageRotation(suite: suite)
        do {
            try deliver(key)
        } catch {
            abandonRotation(of: key)
            throw error
        }
        try completeRotation(of: key)
        return key
    }

    /// ``rotate(suite:deliver:)`` for an app whose `deliver` is a network call: the same three
    /// steps, with `deliver` awaited. No lock is held while it runs, so the app can be suspended
    /// meanwhile without iOS ending it for a lock held in the shared container; run it inside a
    /// background task so that the last write completes.
    /// - Returns: the new key, current once `deliver` returned.
    @discardableResult
    public func rotate(suite: EnvelopeSuite? = nil, deliver: (PrivateKey) async throws -> Void) async throws
        -> PrivateKey
    {
        let key = try stageRotation(suite: suite)
        do {
            try await deliver(key)
        } catch {
            abandonRotation(of: key)
            throw error
        }
        try completeRotation(of: key)
        return key
    }

    /// A rotation's first step: a new device key of `suite` (or the current key's), stored and
    /// not current.
    private func stageRotation(suite: EnvelopeSuite?) throws -> PrivateKey {
        try update { contents in
            let entries = contents.entries
            let suite = suite ?? entries.first { $0.role == .device && $0.current }?.suite ?? .x25519
            var key = try PrivateKey.generate(suite: suite)
            while entries.contains(where: { $0.kid == key.kid }) { key = try PrivateKey.generate(suite: suite) }
            contents.entries.append(
                StoredKey(
                    kid: key.kid, suite: suite, role: .device, current: false, created: StoredKey.timestamp(),
                    jwk: key.privateJWK))
            return key
        }
    }

    /// A rotation whose delivery failed: the key was never handed out, so it goes.
    private func abandonRotation(of key: PrivateKey) {
        try? update { contents in contents.entries.removeAll { $0.role == .device && $0.kid == key.kid } }
    }

    /// A rotation's last step: the delivered key becomes the current one.
    private func completeRotation(of key: PrivateKey) throws {
        try update { contents in
            guard contents.entries.contains(where: { $0.role == .device && $0.kid == key.kid }) else {
                throw PushSealError(
                    .keyStoreUnavailable, "the new key \"\(key.kid)\" was removed before it became current")
            }
            for index in contents.entries.indices where contents.entries[index].role == .device {
                contents.entries[index].current = contents.entries[index].kid == key.kid
            }
        }
    }

    /// Removes the key `kid`.
    /// - Parameters:
    ///   - kid: the key's id.
    ///   - role: which key, when a store written by an older build holds a device key and a
    ///     sender with the same kid; nil when the kid is unambiguous.
    /// - Throws: `PushSealError.Code.invalidKey` for an unknown kid, an ambiguous one without
    ///   `role`, or the current device key.
    public func retire(kid: String, role: StoredKey.Role? = nil) throws {
        try update { contents in
            let matches = contents.entries.indices.filter {
                contents.entries[$0].kid == kid && (role == nil || contents.entries[$0].role == role)
            }
            guard let index = matches.first else {
                let which = role.map { "\($0.rawValue) key" } ?? "key"
                throw PushSealError(.invalidKey, "the store has no \(which) with kid \"\(kid)\"")
            }
            guard matches.count == 1 else {
                throw PushSealError(
                    .invalidKey,
                    "kid \"\(kid)\" names both a device key and a sender in this store: say which (--role device|sender)"
                )
            }
            guard !(contents.entries[index].role == .device && contents.entries[index].current) else {
                throw PushSealError(
                    .invalidKey, "\"\(kid)\" is the current device key: rotate first, then retire it")
            }
            contents.entries.remove(at: index)
        }
    }

    /// Changes the store's policy for unsealed payloads, under the writers' lock.
    /// - Returns: the policy as stored.
    @discardableResult
    public func changePolicy(_ change: (inout StorePolicy) -> Void) throws -> StorePolicy {
        try update { contents in
            change(&contents.policy)
            return contents.policy
        }
    }

    static func checkUnused(_ kid: String, in entries: [StoredKey]) throws {
        if let existing = entries.first(where: { $0.kid == kid }) {
            throw PushSealError(
                .invalidKey,
                "the store already has a \(existing.role.rawValue) key with kid \"\(kid)\" (kids are unique)")
        }
    }

    /// True for a temporary key file that a writer killed before its rename left behind.
    private static func isAbandonedTemporaryFile(_ name: String) -> Bool {
        name.hasPrefix(".\(keysName).") && name.hasSuffix(".tmp")
    }

    /// Reads, changes and atomically rewrites the key file under the writers' lock. Temporary
    /// files left by a killed writer are cleared first: only a writer holding the lock creates
    /// them, so under the lock every one of them is abandoned.
    func update<Result>(_ change: (inout Contents) throws -> Result) throws -> Result {
        try updateIfChanged { contents in (try change(&contents), changed: true) }
    }

    /// ``update(_:)`` for a change that may find nothing to do: when `change` says it changed
    /// nothing, the key file is left as it is.
    func updateIfChanged<Result>(_ change: (inout Contents) throws -> (Result, changed: Bool)) throws -> Result {
        do {
            let store = try StoreDirectory(path: directory)
            return try store.withExclusiveLock(Self.lockName) {
                for name in try store.names() where Self.isAbandonedTemporaryFile(name) { store.remove(name) }
                var contents = try self.contents(in: store)
                let (result, changed) = try change(&contents)
                guard changed else { return result }
                var bytes = Self.serialize(contents)
                defer { SecureMemory.wipe(&bytes) }
                try store.replace(Self.keysName, with: bytes)
                return result
            }
        } catch let failure as ContainerFailure {
            throw unavailable(failure, "cannot update the key store")
        }
    }
}
