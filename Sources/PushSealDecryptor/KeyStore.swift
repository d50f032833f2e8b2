public import PushSealCore

/// Where the decryptor finds the device's keys. ``FileKeyStore`` is the file-based one.
public protocol KeyStore: Sendable {
    /// Loads the current keys.
    /// - Throws: `PushSealError.Code.keyStoreUnavailable` when the store is missing, locked,
    ///   unreadable or unsafe; the message names the file and the fix.
    func loadKeyRing() throws -> KeyRing

    /// Loads the store's policy for unsealed payloads.
    /// - Throws: `PushSealError.Code.keyStoreUnavailable`, as ``loadKeyRing()``.
    func loadPolicy() throws -> StorePolicy

    /// Loads the Web Push receivers that open forwarded Web Push messages, the current one first.
    /// - Throws: `PushSealError.Code.keyStoreUnavailable`, as ``loadKeyRing()``.
    func loadWebPushReceivers() throws -> [WebPushReceiver]
}

extension KeyStore {
    /// A store that holds no Web Push receiver opens no forwarded Web Push message.
    public func loadWebPushReceivers() throws -> [WebPushReceiver] { [] }

    /// A store that says nothing of policy allows unsealed payloads, as envelope v1 does.
    public func loadPolicy() throws -> StorePolicy { .allowUnsealed }
}
