internal import COpenSSL
public import Foundation

/// A cryptographic hash function, as CryptoKit's protocol of that name (the members the stand-in
/// offers). `SHA256` is the only conforming type.
public protocol HashFunction: Sendable {
    /// The digest type.
    associatedtype Digest: Sequence<UInt8> & ContiguousBytes & Sendable
    /// The digest's length in bytes.
    static var byteCount: Int { get }
    /// A fresh hash.
    init()
    /// Adds the bytes at `bufferPointer`.
    mutating func update(bufferPointer: UnsafeRawBufferPointer)
    /// The digest of everything added.
    func finalize() -> Digest
}

extension HashFunction {
    /// Adds `data`.
    public mutating func update<D: DataProtocol>(data: D) {
        withContiguousBytes(of: data) { update(bufferPointer: $0) }
    }

    /// The digest of `data`.
    public static func hash<D: DataProtocol>(data: D) -> Digest {
        var function = Self()
        function.update(data: data)
        return function.finalize()
    }
}

/// SHA-256, as CryptoKit's `SHA256`: a value type (a copy hashes on independently), on OpenSSL.
public struct SHA256: HashFunction {
    /// 32 bytes.
    public static let byteCount = 32

    private var context: DigestContext

    /// A fresh hash.
    public init() {
        context = DigestContext()
    }

    /// Adds the bytes at `bufferPointer`.
    public mutating func update(bufferPointer: UnsafeRawBufferPointer) {
        if !isKnownUniquelyReferenced(&context) { context = context.copy() }
        context.update(bufferPointer)
    }

    /// The digest of everything added; the hash itself is left as it was.
    public func finalize() -> SHA256Digest {
        SHA256Digest(bytes: context.copy().finish())
    }
}

extension SHA256: OpenSSLHashFunction {
    static var digest: OpaquePointer? { OpenSSLAlgorithms.sha256 }
    static var digestName: StaticString { "SHA256" }
}

/// A SHA-256 digest, as CryptoKit's `SHA256Digest`.
public struct SHA256Digest: Sequence, ContiguousBytes, Hashable, Sendable {
    let bytes: [UInt8]

    /// Iterates over the digest's 32 bytes.
    public func makeIterator() -> IndexingIterator<[UInt8]> { bytes.makeIterator() }

    /// Calls `body` with the digest's bytes.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }
}

/// An `EVP_MD_CTX` running SHA-256, owned by one `SHA256` value until it is copied.
private final class DigestContext: @unchecked Sendable {
    private let pointer: OpaquePointer

    init() {
        guard let pointer = EVP_MD_CTX_new(), EVP_DigestInit_ex(pointer, OpenSSLAlgorithms.sha256, nil) == 1 else {
            preconditionFailure("SHA-256 is unavailable from OpenSSL")
        }
        self.pointer = pointer
    }

    private init(copying other: DigestContext) {
        guard let pointer = EVP_MD_CTX_new(), EVP_MD_CTX_copy_ex(pointer, other.pointer) == 1 else {
            preconditionFailure("SHA-256 state could not be copied")
        }
        self.pointer = pointer
    }

    func copy() -> DigestContext { DigestContext(copying: self) }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        precondition(EVP_DigestUpdate(pointer, bytes.baseAddress, bytes.count) == 1, "SHA-256 update failed")
    }

    func finish() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: SHA256.byteCount)
        var length: UInt32 = 0
        precondition(EVP_DigestFinal_ex(pointer, &digest, &length) == 1, "SHA-256 final failed")
        return digest
    }

    deinit { EVP_MD_CTX_free(pointer) }
}
