public import Foundation

/// A nonce, a ciphertext and its 16-byte tag: what `ChaChaPoly.SealedBox` and
/// `AES.GCM.SealedBox` are, spelled as CryptoKit spells them through a type alias in each.
public struct AEADSealedBox<Nonce: Sendable>: Sendable {
    /// The nonce.
    public let nonce: Nonce
    /// The ciphertext, as long as the plaintext.
    public let ciphertext: Data
    /// The authentication tag.
    public let tag: Data

    /// A box from its parts.
    /// - Throws: `CryptoKitError.incorrectParameterSize` when the tag is not 16 bytes.
    public init<C: DataProtocol, T: DataProtocol>(nonce: Nonce, ciphertext: C, tag: T) throws {
        guard tag.count == 16 else { throw CryptoKitError.incorrectParameterSize }
        self.nonce = nonce
        self.ciphertext = Data(ciphertext)
        self.tag = Data(tag)
    }
}

/// A nonce's bytes, checked by its algorithm's rule: what `ChaChaPoly.Nonce` and
/// `AES.GCM.Nonce` are, through a type alias in each.
public struct AEADNonce<Rule: AEADNonceRule>: ContiguousBytes, Sequence, Sendable {
    let bytes: [UInt8]

    /// A random nonce of the standard 12 bytes.
    public init() {
        bytes = SystemRandom.bytes(12)
    }

    /// The nonce `data`, of a length the algorithm takes.
    /// - Throws: `CryptoKitError.incorrectParameterSize` for any other length.
    public init<D: DataProtocol>(data: D) throws {
        guard Rule.accepts(byteCount: data.count) else { throw CryptoKitError.incorrectParameterSize }
        bytes = Array(data)
    }

    /// Iterates over the nonce's bytes.
    public func makeIterator() -> IndexingIterator<[UInt8]> { bytes.makeIterator() }

    /// Calls `body` with the nonce's bytes.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }
}

/// Which nonce lengths an AEAD of the stand-in takes.
public protocol AEADNonceRule: Sendable {
    /// True for a length the algorithm takes.
    static func accepts(byteCount: Int) -> Bool
}
