internal import PushSealPrimitives

/// Memory hygiene for callers that must handle key material in plain buffers (a key file's text).
public enum SecureMemory {
    /// Overwrites `bytes` with zeros; the compiler cannot elide it.
    public static func wipe(_ bytes: inout [UInt8]) {
        PushSealPrimitives.wipe(&bytes)
    }
}
