public import PushSealCore

/// The device's keys in a directory: the stand-in for the app-group container that the app and
/// its extension share.
///
/// Layout (format version 1):
/// - `keys.json` (0600, at most 1 MiB): `{"format":"pushseal-key-store","version":1,
///   ["policy":{…},] "keys":[…]}`, every key with its kid, suite, role, current flag, creation
///   time and JWK. One file, so a rotation (new key plus new current flag) is a single atomic
///   replacement.
/// - `.lock` (0600): the `flock` that serialises writers from different processes.
/// - `ledger.sqlite` (0600): the event ledger (see ``EventLedger``).
///
/// The container is shared with the app, so everything in it is untrusted input: the directory
/// and its files are opened as `StoreDirectory` describes (no symbolic link followed, no FIFO
/// or device opened, owner and mode checked on the open descriptor, size capped). A refusal
/// names the file, the reason and the fix. Readers take no lock: writers replace `keys.json` by
/// rename, so a reader sees the old file or the new one, never half of either.
public struct FileKeyStore: KeyStore {
    /// The store's directory.
    public let directory: String

    static let formatName = "pushseal-key-store"
    static let formatVersion = 1
    static let keysName = "keys.json"
    static let lockName = ".lock"
    static let ledgerName = "ledger.sqlite"
    /// The largest `keys.json` read: far above any real store (a key is about 250 bytes).
    public static let maximumKeyFileSize = 1 << 20

    /// A store at `directory`; nothing is read until it is used.
    public init(directory: String) {
        self.directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
    }

    /// The key file's path.
    public var keysPath: String { "\(directory)/\(Self.keysName)" }

    /// The event ledger kept in the store.
    public var ledger: EventLedger { EventLedger(path: "\(directory)/\(Self.ledgerName)") }

    /// Every device key and trusted sender, for opening envelopes.
    public func loadKeyRing() throws -> KeyRing {
        try Self.keyRing(of: try contents().entries, path: keysPath)
    }

    /// The store's policy for unsealed payloads.
    public func loadPolicy() throws -> StorePolicy {
        try contents().policy
    }

    /// The Web Push receivers, the current one first, that open forwarded Web Push messages.
    public func loadWebPushReceivers() throws -> [WebPushReceiver] {
        let entries = try contents().entries.filter { $0.role == .webPush }
        return try (entries.filter(\.current) + entries.filter { !$0.current }).map { entry in
            do {
                return try Self.webPushReceiver(entry)
            } catch {
                throw PushSealError(.keyStoreUnavailable, "key \"\(entry.kid)\" in \(keysPath) is unusable: \(error)")
            }
        }
    }

    /// The stored keys, in the order they were added.
    /// - Throws: `PushSealError.Code.keyStoreUnavailable` naming the file and the fix.
    public func entries() throws -> [StoredKey] {
        try contents().entries
    }

    /// What `keys.json` holds.
    struct Contents {
        var policy: StorePolicy
        var entries: [StoredKey]
    }

    /// Reads and parses `keys.json` under the container's trust rules.
    func contents() throws -> Contents {
        do {
            let store = try StoreDirectory(path: directory)
            return try contents(in: store)
        } catch let failure as ContainerFailure {
            throw unavailable(failure, "key store refused")
        }
    }

    /// The store error for a refused file: the store is missing, locked by data protection, or
    /// `context` and the refusal.
    func unavailable(_ failure: ContainerFailure, _ context: String) -> PushSealError {
        if failure.isLocked {
            return PushSealError(
                .keyStoreLocked,
                "\(failure.path) is protected until the device's first unlock after a restart (\(failure.problem))")
        }
        return failure.isMissing && failure.path == directory
            ? PushSealError(.keyStoreUnavailable, "the key store \(directory) does not exist")
            : PushSealError(.keyStoreUnavailable, "\(context): \(failure)")
    }

    /// Reads and parses `keys.json` in an opened store directory.
    func contents(in store: StoreDirectory) throws -> Contents {
        var bytes: [UInt8]
        do {
            bytes = try store.read(Self.keysName, maximumSize: Self.maximumKeyFileSize)
        } catch let failure where failure.isMissing {
            throw PushSealError(
                .keyStoreUnavailable,
                "\(directory) is not a key store (no keys.json): run `pushseal keys init --store \(directory)`")
        } catch {
            throw unavailable(error, "key store refused")
        }
        defer { SecureMemory.wipe(&bytes) }
        return try Self.parse(bytes, path: keysPath)
    }

    /// What a reader makes of the bytes of a `keys.json`, exactly as ``loadKeyRing()`` and
    /// ``loadPolicy()`` do after reading the file: for the key-store fuzz target.
    /// - Throws: `PushSealError.Code.keyStoreUnavailable` naming what is wrong.
    package static func read(keyFile bytes: [UInt8]) throws -> (ring: KeyRing, policy: StorePolicy) {
        let contents = try parse(bytes, path: keysName)
        return (try keyRing(of: contents.entries, path: keysName), contents.policy)
    }

    /// The keys of `entries` as a ring, each JWK checked.
    static func keyRing(of entries: [StoredKey], path: String) throws -> KeyRing {
        var ring = KeyRing(deviceKeys: [])
        for entry in entries {
            do {
                switch entry.role {
                case .device: ring.deviceKeys.append(try PrivateKey(jwk: entry.jwk))
                case .sender: ring.trustedSenders.append(try PublicKey(jwk: entry.jwk))
                case .webPush: _ = try webPushReceiver(entry)
                }
            } catch {
                throw PushSealError(.keyStoreUnavailable, "key \"\(entry.kid)\" in \(path) is unusable: \(error)")
            }
        }
        return ring
    }

    /// The Web Push receiver of a `webpush` entry.
    static func webPushReceiver(_ entry: StoredKey) throws -> WebPushReceiver {
        try WebPushReceiver(
            json: JSONObject([("private_key", .object(entry.jwk)), ("auth", .string(entry.auth ?? ""))]))
    }

    /// Parses the bytes of a `keys.json`; every failure is `key-store-unavailable` naming `path`.
    static func parse(_ bytes: [UInt8], path: String) throws -> Contents {
        guard let root = try? JSONParser.parse(bytes).objectValue,
            root["format"]?.stringValue?.isExactly(formatName) == true
        else {
            throw PushSealError(.keyStoreUnavailable, "\(path) is not a PushSeal key file")
        }
        guard root["version"]?.numberValue?.intValue == formatVersion else {
            throw PushSealError(.keyStoreUnavailable, "\(path) has a key-store version this build does not read")
        }
        guard case .array(let records)? = root["keys"] else {
            throw PushSealError(.keyStoreUnavailable, "\(path) has no \"keys\" array")
        }
        var policy = StorePolicy.allowUnsealed
        if let value = root["policy"] {
            guard let record = value.objectValue else {
                throw PushSealError(.keyStoreUnavailable, "\(path) has a \"policy\" that is not an object")
            }
            policy = try StorePolicy(record: record, path: path)
        }
        let entries = try records.enumerated().map { index, record in
            guard let object = record.objectValue else {
                throw PushSealError(.keyStoreUnavailable, "key \(index) in \(path) is not an object")
            }
            return try StoredKey(record: object, index: index)
        }
        return Contents(policy: policy, entries: entries)
    }

    static func serialize(_ contents: Contents) -> [UInt8] {
        var bytes = Array("{\"format\":\"\(formatName)\",\"version\":\(formatVersion),".utf8)
        if contents.policy != .allowUnsealed {
            bytes += Array("\"policy\":".utf8)
            JSONWriter.write(.object(contents.policy.record), into: &bytes)
            bytes += Array(",".utf8)
        }
        bytes += Array("\"keys\":[\n".utf8)
        for (index, entry) in contents.entries.enumerated() {
            JSONWriter.write(.object(entry.record), into: &bytes)
            bytes += Array((index + 1 < contents.entries.count ? ",\n" : "\n").utf8)
        }
        bytes += Array("]}\n".utf8)
        return bytes
    }
}
