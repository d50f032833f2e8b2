internal import PushSealPrimitives

/// Random version 4 UUIDs, in lower case, from the crypto backend's generator: event ids and
/// attachment file names, without Foundation.
public enum RandomUUID {
    /// A fresh UUID, `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`.
    public static func make() -> String {
        var bytes = SecureRandom.bytes(16)
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        return UUIDText.format(bytes)
    }
}
