internal import PushSealPrimitives

/// Version 7 UUIDs (RFC 9562, section 5.7), in lower case: the first 48 bits are the time in
/// milliseconds since the epoch, the rest random (74 bits, from the crypto backend's generator).
/// Ids made later sort after earlier ones (to the millisecond), so a database index of them
/// grows at its end instead of at random places: the gateway's push ids, and (as base64url) its
/// deliveries' receipt ids.
public enum TimeOrderedUUID {
    /// A fresh UUID for `milliseconds` since the epoch, `tttttttt-tttt-7xxx-yxxx-xxxxxxxxxxxx`.
    public static func make(milliseconds: Int64) -> String { UUIDText.format(bytes(milliseconds: milliseconds)) }

    /// The 16 bytes of a fresh UUID for `milliseconds` since the epoch.
    public static func bytes(milliseconds: Int64) -> [UInt8] {
        var bytes = SecureRandom.bytes(16)
        let time = UInt64(clamping: max(0, milliseconds))
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: time >> (8 * (5 - index))) }
        bytes[6] = bytes[6] & 0x0F | 0x70
        bytes[8] = bytes[8] & 0x3F | 0x80
        return bytes
    }
}
