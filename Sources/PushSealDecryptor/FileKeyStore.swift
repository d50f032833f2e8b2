public import PushSealCore

/// The device's keys in a directory: the stand-in for the app-group container that the app and
/// its extension share.
///
/// Layout (format version 1):
/// - `keys.json` (0600): `{"format":"pushseal-key-store","version":1,"keys":[…]}`, every key with
///   its kid, suite, role, current flag, creation time and JWK. One file, so a rotation (new key
///   plus new current flag) is a single atomic replacement.
/// - `.lock` (0600): the `flock` that serialises writers from different processes.
/// - `ledger.sqlite` (0600): the event ledger (see ``EventLedger``).
///
/// The directory is 0700. A store whose directory or key file is readable by group or others is
/// refused, with the file and the fix in the message. Readers take no lock: writers replace
/// `keys.json` by rename, so a reader sees the old file or the new one, never half of either.
public struct FileKeyStore: KeyStore {
    /// The store's directory.
    public let directory: String

    static let formatName = "pushseal-key-store"
    static let formatVersion = 1

    /// A store at `directory`; nothing is read until it is used.
    public init(directory: String) {
        self.directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
    }

    /// The key file's path.
    public var keysPath: String { "\(directory)/keys.json" }
    var lockPath: String { "\(directory)/.lock" }

    /// The event ledger kept in the store.
    public var ledger: EventLedger { EventLedger(path: "\(directory)/ledger.sqlite") }

    /// Every device key and trusted sender, for opening envelopes.
    public func loadKeyRing() throws -> KeyRing {
        var ring = KeyRing(deviceKeys: [])
        for entry in try entries() {
            do {
                switch entry.role {
                case .device: ring.deviceKeys.append(try PrivateKey(jwk: entry.jwk))
                case .sender: ring.trustedSenders.append(try PublicKey(jwk: entry.jwk))
                }
            } catch {
                throw PushSealError(.keyStoreUnavailable, "key \"\(entry.kid)\" in \(keysPath) is unusable: \(error)")
            }
        }
        return ring
    }

    /// The stored keys, in the order they were added.
    /// - Throws: `PushSealError.Code.keyStoreUnavailable` naming the file and the fix.
    public func entries() throws -> [StoredKey] {
        try checkPermissions()
        var bytes: [UInt8]
        do {
            bytes = try FileSystem.readFile(keysPath)
        } catch let failure as FileSystem.Failure where failure.isMissing {
            throw PushSealError(
                .keyStoreUnavailable,
                "\(directory) is not a key store (no keys.json): run `pushseal keys init --store \(directory)`")
        } catch {
            throw PushSealError(.keyStoreUnavailable, "cannot read \(keysPath): \(error)")
        }
        defer { SecureMemory.wipe(&bytes) }
        return try Self.parse(bytes, path: keysPath)
    }

    private func checkPermissions() throws {
        do {
            guard let directoryMode = try FileSystem.mode(directory), FileSystem.isDirectory(directory) else {
                throw PushSealError(.keyStoreUnavailable, "the key store \(directory) does not exist")
            }
            if directoryMode & 0o077 != 0 {
                throw PushSealError(
                    .keyStoreUnavailable,
                    "the key store \(directory) is open to group or others (mode \(String(directoryMode, radix: 8))): "
                        + "run `chmod 700 \(directory)`")
            }
            if let fileMode = try FileSystem.mode(keysPath), fileMode & 0o077 != 0 {
                throw PushSealError(
                    .keyStoreUnavailable,
                    "\(keysPath) is readable by group or others (mode \(String(fileMode, radix: 8))): run `chmod 600 \(keysPath)`"
                )
            }
        } catch let failure as FileSystem.Failure {
            throw PushSealError(.keyStoreUnavailable, "cannot inspect the key store: \(failure)")
        }
    }

    static func parse(_ bytes: [UInt8], path: String) throws -> [StoredKey] {
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
        return try records.enumerated().map { index, record in
            guard let object = record.objectValue else {
                throw PushSealError(.keyStoreUnavailable, "key \(index) in \(path) is not an object")
            }
            return try StoredKey(record: object, index: index)
        }
    }

    static func serialize(_ entries: [StoredKey]) -> [UInt8] {
        var bytes = Array("{\"format\":\"\(formatName)\",\"version\":\(formatVersion),\"keys\":[\n".utf8)
        for (index, entry) in entries.enumerated() {
            JSONWriter.write(.object(entry.record), into: &bytes)
            bytes += Array((index + 1 < entries.count ? ",\n" : "\n").utf8)
        }
        bytes += Array("]}\n".utf8)
        return bytes
    }
}
