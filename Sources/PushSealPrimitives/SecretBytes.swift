/// Bytes that must stay secret: key material and shared secrets.
///
/// The storage is wiped (``SecureMemory/zero(_:_:)``) when the last copy is released, equality is
/// constant-time (``SecureMemory/equal(_:_:_:)``), and neither `description` nor `debugDescription` ever shows
/// the bytes. The bytes are reachable only through ``withUnsafeBytes(_:)``.
package struct SecretBytes: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    private let storage: Storage

    /// Creates `count` bytes and lets `initializer` fill them in place, so no copy is left behind.
    package init(
        count: Int,
        initializer: (UnsafeMutableRawBufferPointer) throws -> Void
    ) rethrows {
        let storage = Storage(count: count)
        try initializer(storage.buffer)
        self.storage = storage
    }

    /// Creates `count` bytes and lets `fill` write them through a pointer that is valid even for zero bytes.
    package init(count: Int, filling fill: (UnsafeMutablePointer<UInt8>) throws -> Void) rethrows {
        let storage = Storage(count: count)
        try fill(storage.base)
        self.storage = storage
    }

    /// Copies `bytes`; the caller remains responsible for any other copy it holds.
    package init(copying bytes: some Collection<UInt8>) {
        self.init(count: bytes.count) { buffer in
            buffer.copyBytes(from: bytes)
        }
    }

    /// `first || second`, in wiped storage (auth mode's two Diffie-Hellman outputs).
    package init(concatenating first: SecretBytes, _ second: SecretBytes) {
        self.init(count: first.count + second.count) { buffer in
            first.withUnsafeBytes { buffer.copyMemory(from: $0) }
            second.withUnsafeBytes {
                UnsafeMutableRawBufferPointer(rebasing: buffer[first.count...]).copyMemory(from: $0)
            }
        }
    }

    /// Fresh random bytes from the operating system's generator (``SecureMemory/fillRandom(_:_:)``).
    package init(randomCount count: Int) {
        self.init(count: count) { buffer in
            if let base = buffer.baseAddress { SecureMemory.fillRandom(base, buffer.count) }
        }
    }

    /// The number of bytes.
    package var count: Int { storage.buffer.count }

    /// Gives `body` a pointer to the bytes, valid even when there are none; it must not escape.
    package func withBytePointer<Result>(_ body: (UnsafePointer<UInt8>) throws -> Result) rethrows -> Result {
        try body(storage.base)
    }

    /// Gives `body` read access to the bytes; the pointer must not escape.
    package func withUnsafeBytes<Result>(
        _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        try body(UnsafeRawBufferPointer(storage.buffer))
    }

    /// Constant-time comparison; secrets of different lengths are unequal (lengths are not secret).
    package static func == (lhs: SecretBytes, rhs: SecretBytes) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return SecureMemory.equal(lhs.storage.base, rhs.storage.base, lhs.count)
    }

    package var description: String { "SecretBytes(\(count) bytes, redacted)" }
    package var debugDescription: String { description }
}

extension SecretBytes {
    /// Owns the buffer. Immutable after initialisation, which is why sharing it is safe.
    private final class Storage: @unchecked Sendable {
        /// Always at least one byte, so that the address is valid even for an empty secret.
        let base: UnsafeMutablePointer<UInt8>
        let buffer: UnsafeMutableRawBufferPointer

        init(count: Int) {
            let capacity = max(count, 1)
            base = .allocate(capacity: capacity)
            base.initialize(repeating: 0, count: capacity)
            buffer = UnsafeMutableRawBufferPointer(start: base, count: max(count, 0))
        }

        deinit {
            SecureMemory.zero(base, max(buffer.count, 1))
            base.deallocate()
        }
    }
}

/// Overwrites the bytes of `buffer` with zeros in a way the optimiser cannot remove.
package func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
    if let base = buffer.baseAddress { SecureMemory.zero(base, buffer.count) }
}

/// Overwrites `bytes` with zeros in a way the optimiser cannot remove.
package func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { wipe($0) }
}
