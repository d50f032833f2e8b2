public import PushSealCore

/// Where the decryptor finds the device's keys. ``FileKeyStore`` is the file-based one.
public protocol KeyStore: Sendable {
    /// Loads the current keys.
    /// - Throws: `PushSealError.Code.keyStoreUnavailable` when the store is missing, locked,
    ///   unreadable or unsafe; the message names the file and the fix.
    func loadKeyRing() throws -> KeyRing
}
