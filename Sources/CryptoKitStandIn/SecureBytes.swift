internal import CSodium

/// Bytes held by a key or a secret: one heap buffer, never copied by value, zeroed
/// (`sodium_memzero`) when the last owner releases it, as CryptoKit's own key storage is.
final class SecureBytes: @unchecked Sendable {
    private let buffer: UnsafeMutableRawBufferPointer

    /// `count` zero bytes for `fill` to write; the buffer is read-only once this returns.
    init(count: Int, fill: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        buffer = .allocate(byteCount: max(count, 1), alignment: 16)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        do {
            try fill(UnsafeMutableRawBufferPointer(rebasing: buffer[..<count]))
        } catch {
            Self.release(buffer)
            throw error
        }
        self.count = count
    }

    /// A copy of `bytes`.
    convenience init(copying bytes: UnsafeRawBufferPointer) {
        self.init(count: bytes.count) { $0.copyMemory(from: bytes) }
    }

    /// The number of bytes.
    let count: Int

    /// Calls `body` with the bytes.
    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
    }

    deinit { Self.release(buffer) }

    private static func release(_ buffer: UnsafeMutableRawBufferPointer) {
        sodium_memzero(buffer.baseAddress, buffer.count)
        buffer.deallocate()
    }
}

/// Runs `body` over the bytes of `data` as one contiguous buffer, without a copy when the
/// collection already is one (`Data`, `[UInt8]`, an `UnsafeRawBufferPointer`).
func withContiguousBytes<Result>(
    of data: some Sequence<UInt8>, _ body: (UnsafeRawBufferPointer) throws -> Result
) rethrows -> Result {
    if let result = try data.withContiguousStorageIfAvailable({ try body(UnsafeRawBufferPointer($0)) }) {
        return result
    }
    return try Array(data).withUnsafeBytes(body)
}

extension UnsafeRawBufferPointer {
    /// The bytes as a C `const uint8_t *` that is never NULL: an empty buffer gets a pointer to
    /// a static empty string, since C libraries read NULL as "absent" (or crash on it).
    var bytePointer: UnsafePointer<UInt8> {
        (baseAddress ?? UnsafeRawPointer(("" as StaticString).utf8Start)).assumingMemoryBound(to: UInt8.self)
    }
}

extension UnsafeMutableRawBufferPointer {
    /// The bytes as a C `uint8_t *`; every buffer the stand-in fills is allocated, so never NULL.
    var mutableBytePointer: UnsafeMutablePointer<UInt8> {
        guard let baseAddress else { preconditionFailure("an output buffer without storage") }
        return baseAddress.assumingMemoryBound(to: UInt8.self)
    }
}
