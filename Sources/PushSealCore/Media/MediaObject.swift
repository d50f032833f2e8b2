internal import PushSealPrimitives

/// The layout of a media object (media-v1.md, "Object"): magic and salt, then ChaCha20-Poly1305
/// chunks of 64 KiB under a key derived from the object key, with STREAM nonces.
public enum MediaObject {
    /// `PSM1`.
    public static let magic: [UInt8] = Array("PSM1".utf8)
    /// The salt's length.
    public static let saltByteCount = 32
    /// Magic and salt.
    public static let headerByteCount = 36
    /// Plaintext bytes per chunk (the last holds 1 to this many).
    public static let chunkByteCount = 65_536
    /// Each chunk's tag.
    public static let tagByteCount = 16
    /// HKDF's info, and the start of every chunk's associated data.
    static let label: [UInt8] = Array("pushseal media v1".utf8)

    /// The padded length of `length` media bytes (Padmé).
    public static func paddedLength(_ length: Int) -> Int {
        guard length >= 2 else { return length }
        let exponent = Int.bitWidth - 1 - length.leadingZeroBitCount
        let sizeBits = Int.bitWidth - exponent.leadingZeroBitCount
        let mask = (1 << (exponent - sizeBits)) - 1
        return (length + mask) & ~mask
    }

    /// How many chunks a stream of `paddedLength` bytes has (at least one).
    public static func chunkCount(paddedLength: Int) -> Int {
        max(1, (paddedLength + chunkByteCount - 1) / chunkByteCount)
    }

    /// The object's size for `length` media bytes.
    public static func objectSize(length: Int) -> Int {
        let padded = paddedLength(length)
        return headerByteCount + padded + tagByteCount * chunkCount(paddedLength: padded)
    }

    /// The associated data of every chunk: the label, the type and the length.
    static func associatedData(type: MediaType, length: Int) -> [UInt8] {
        var aad = label + [0] + Array(type.name.utf8) + [0]
        for shift in stride(from: 56, through: 0, by: -8) { aad.append(UInt8(truncatingIfNeeded: length >> shift)) }
        return aad
    }

    /// Chunk `index`'s nonce: 11 bytes of big-endian index, then the final flag.
    static func nonce(index: Int, final: Bool) -> [UInt8] {
        var nonce = [UInt8](repeating: 0, count: 12)
        for byte in 0..<8 { nonce[10 - byte] = UInt8(truncatingIfNeeded: index >> (8 * byte)) }
        nonce[11] = final ? 1 : 0
        return nonce
    }

    /// The stream key: HKDF-SHA256 of the object key with the object's salt.
    static func streamKey(objectKey: SecretBytes, salt: [UInt8]) throws -> SecretBytes {
        try HKDF.deriveKey(ikm: objectKey, salt: salt, info: label, length: 32)
    }
}
