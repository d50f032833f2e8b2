internal import PushSealPrimitives

/// Encrypts a media file into a media object as it is read, in constant memory: one 64 KiB
/// chunk is held at a time. Feed it the media's bytes with ``append(_:emit:)`` and end with
/// ``finish(url:emit:)``; every byte of the object goes to `emit`, in order.
public final class MediaStreamSealer {
    private let type: MediaType
    private let length: Int
    private let paddedLength: Int
    private let chunkCount: Int
    private let objectKey: SecretBytes
    private let streamKey: SecretBytes
    private let salt: [UInt8]
    private let associatedData: [UInt8]
    private let hasher = SHA256.Hasher()
    private var pending: [UInt8] = []
    private var consumed = 0
    private var chunkIndex = 0
    private var started = false

    /// A sealer for `length` bytes of `type`, under a fresh random key and salt.
    /// - Throws: `PushSealError.Code.invalidPayload` when `length` is 0 or over the type's limit.
    public convenience init(type: MediaType, length: Int) throws {
        try self.init(
            type: type, length: length, objectKey: SecretBytes(randomCount: 32),
            salt: SecureRandom.bytes(MediaObject.saltByteCount))
    }

    /// A sealer with a given object key and salt: for reproducible test vectors only (a real
    /// object always has a fresh random key).
    package convenience init(type: MediaType, length: Int, objectKey: [UInt8], salt: [UInt8]) throws {
        try self.init(type: type, length: length, objectKey: SecretBytes(copying: objectKey), salt: salt)
    }

    private init(type: MediaType, length: Int, objectKey: SecretBytes, salt: [UInt8]) throws {
        guard length > 0, length <= type.maximumLength else {
            throw PushSealError(
                .invalidPayload, "\(type) media must be 1 to \(type.maximumLength) bytes (Apple's limit), not \(length)"
            )
        }
        self.type = type
        self.length = length
        paddedLength = MediaObject.paddedLength(length)
        chunkCount = MediaObject.chunkCount(paddedLength: paddedLength)
        self.objectKey = objectKey
        self.salt = salt
        streamKey = try MediaObject.streamKey(objectKey: objectKey, salt: salt)
        associatedData = MediaObject.associatedData(type: type, length: length)
        pending.reserveCapacity(MediaObject.chunkByteCount)
    }

    /// Adds media bytes; sealed chunks go to `emit`.
    public func append(_ bytes: UnsafeRawBufferPointer, emit: ([UInt8]) throws -> Void) throws {
        guard consumed + bytes.count <= length else {
            throw PushSealError(.invalidPayload, "the media is longer than the \(length) bytes declared")
        }
        try start(emit)
        consumed += bytes.count
        var offset = 0
        while offset < bytes.count {
            let take = min(MediaObject.chunkByteCount - pending.count, bytes.count - offset)
            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + take)]))
            offset += take
            try sealFullChunk(emit)
        }
    }

    /// Pads, seals the final chunk, and describes the object (to be found at `url`, which must
    /// pass ``MediaDescriptor/checkURL(_:)``).
    public func finish(url: String, emit: ([UInt8]) throws -> Void) throws -> MediaDescriptor {
        guard consumed == length else {
            throw PushSealError(.invalidPayload, "the media is \(consumed) bytes, not the \(length) declared")
        }
        try start(emit)
        var padding = paddedLength - length
        while padding > 0 {
            let take = min(MediaObject.chunkByteCount - pending.count, padding)
            pending.append(contentsOf: repeatElement(0, count: take))
            padding -= take
            try sealFullChunk(emit)
        }
        if !pending.isEmpty { try seal(final: true, emit) }
        precondition(chunkIndex == chunkCount, "the stream did not end on its final chunk")
        try MediaDescriptor.checkURL(url)
        return MediaDescriptor(url: url, key: objectKey, type: type, length: length, sha256: hasher.finalize())
    }

    private func start(_ emit: ([UInt8]) throws -> Void) throws {
        guard !started else { return }
        started = true
        try output(MediaObject.magic + salt, emit)
    }

    /// Seals the pending chunk when it is full; it is the final one when it ends the stream.
    private func sealFullChunk(_ emit: ([UInt8]) throws -> Void) throws {
        guard pending.count == MediaObject.chunkByteCount else { return }
        try seal(final: chunkIndex == chunkCount - 1, emit)
    }

    private func seal(final: Bool, _ emit: ([UInt8]) throws -> Void) throws {
        let sealed = try AEAD.chaCha20Poly1305.seal(
            key: streamKey, nonce: MediaObject.nonce(index: chunkIndex, final: final), aad: associatedData,
            plaintext: pending)
        wipe(&pending)
        pending.removeAll(keepingCapacity: true)
        chunkIndex += 1
        try output(sealed, emit)
    }

    private func output(_ bytes: [UInt8], _ emit: ([UInt8]) throws -> Void) throws {
        bytes.withUnsafeBytes { hasher.update($0) }
        try emit(bytes)
    }
}
