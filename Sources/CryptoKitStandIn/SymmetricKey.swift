public import Foundation

/// A symmetric key, as CryptoKit's `SymmetricKey`: its bytes are wiped when it is released.
public struct SymmetricKey: ContiguousBytes, Sendable {
    let storage: SecureBytes

    /// A key holding a copy of `data`.
    public init<D: ContiguousBytes>(data: D) {
        storage = data.withUnsafeBytes { SecureBytes(copying: $0) }
    }

    /// The key's size in bits.
    public var bitCount: Int { storage.count * 8 }

    /// Calls `body` with the key's bytes.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try storage.withUnsafeBytes(body)
    }
}

/// The result of a key agreement, as CryptoKit's `SharedSecret`: wiped when released.
public struct SharedSecret: ContiguousBytes, Sendable {
    let storage: SecureBytes

    /// Calls `body` with the secret's bytes.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try storage.withUnsafeBytes(body)
    }
}
