internal import PushSealPrimitives

/// Checks and decrypts a media object as its bytes arrive, in constant memory (one chunk at a
/// time): feed it with ``append(_:write:)`` in pieces of any size, then call ``finish()``.
///
/// Decrypted media bytes go to `write` as soon as their chunk opens; they are not to be shown
/// until ``finish()`` returns, which checks the object's SHA-256 against the descriptor (the key
/// commitment), that the final chunk came last, that the padding is zeros, and that the media's
/// first bytes are of the declared type.
public final class MediaStreamOpener {
    private let descriptor: MediaDescriptor
    private let paddedLength: Int
    private let chunkCount: Int
    private let associatedData: [UInt8]
    private let hasher = SHA256.Hasher()
    private var streamKey: SecretBytes?
    private var buffer: [UInt8] = []
    private var received = 0
    private var chunkIndex = 0
    private var released = 0
    private var head: [UInt8] = []

    /// An opener for the object `descriptor` describes.
    public init(descriptor: MediaDescriptor) {
        self.descriptor = descriptor
        paddedLength = MediaObject.paddedLength(descriptor.length)
        chunkCount = MediaObject.chunkCount(paddedLength: paddedLength)
        associatedData = MediaObject.associatedData(type: descriptor.type, length: descriptor.length)
        buffer.reserveCapacity(MediaObject.chunkByteCount + MediaObject.tagByteCount)
    }

    /// Adds object bytes; decrypted media bytes go to `write`.
    /// - Throws: `media-too-large` past the descriptor's size; `media-integrity` for a chunk that
    ///   does not open; whatever `write` throws.
    public func append(_ bytes: UnsafeRawBufferPointer, write: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard received + bytes.count <= descriptor.size else {
            throw MediaFailure(.tooLarge, "the object is longer than the \(descriptor.size) bytes described")
        }
        received += bytes.count
        hasher.update(bytes)
        var offset = 0
        while offset < bytes.count {
            let take = min(expectedNext - buffer.count, bytes.count - offset)
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + take)]))
            offset += take
            if buffer.count == expectedNext { try consumeBuffer(write) }
        }
    }

    /// Ends the stream: everything is checked before the media may be shown.
    /// - Throws: ``MediaFailure``: `media-integrity` for a short object, a hash mismatch or a
    ///   missing final chunk; `media-type-mismatch` for media of another type.
    public func finish() throws(MediaFailure) {
        guard received == descriptor.size, chunkIndex == chunkCount else {
            throw MediaFailure(.integrity, "the object ends after \(received) of \(descriptor.size) bytes")
        }
        guard ConstantTime.equals(hasher.finalize(), descriptor.sha256) else {
            throw MediaFailure(.integrity, "the object's SHA-256 is not the descriptor's")
        }
        guard (try? MediaType.sniff(head)) == descriptor.type else {
            throw MediaFailure(.typeMismatch, "the media is not \(descriptor.type)")
        }
    }

    /// How many bytes the next unit (header, or chunk with its tag) has.
    private var expectedNext: Int {
        guard streamKey != nil else { return MediaObject.headerByteCount }
        let isLast = chunkIndex == chunkCount - 1
        let plain = isLast ? paddedLength - MediaObject.chunkByteCount * (chunkCount - 1) : MediaObject.chunkByteCount
        return plain + MediaObject.tagByteCount
    }

    private func consumeBuffer(_ write: (UnsafeRawBufferPointer) throws -> Void) throws {
        defer { buffer.removeAll(keepingCapacity: true) }
        guard let streamKey else {
            guard buffer.starts(with: MediaObject.magic) else {
                throw MediaFailure(.integrity, "the object does not start with PSM1")
            }
            do {
                self.streamKey = try MediaObject.streamKey(
                    objectKey: descriptor.key, salt: Array(buffer[MediaObject.magic.count...]))
            } catch {
                throw MediaFailure(.integrity, "the stream key could not be derived")
            }
            return
        }
        guard chunkIndex < chunkCount else { throw MediaFailure(.integrity, "data after the final chunk") }
        var plain: [UInt8]
        do {
            plain = try AEAD.chaCha20Poly1305.open(
                key: streamKey, nonce: MediaObject.nonce(index: chunkIndex, final: chunkIndex == chunkCount - 1),
                aad: associatedData, ciphertext: buffer)
        } catch {
            throw MediaFailure(.integrity, "chunk \(chunkIndex) does not open (tampered, reordered or cut)")
        }
        defer { wipe(&plain) }
        chunkIndex += 1
        let media = min(plain.count, descriptor.length - released)
        if head.count < MediaType.sniffLength {
            head += plain.prefix(min(media, MediaType.sniffLength - head.count))
        }
        guard plain[media...].allSatisfy({ $0 == 0 }) else {
            throw MediaFailure(.integrity, "the padding is not zeros")
        }
        released += media
        try plain.withUnsafeBytes { try write(UnsafeRawBufferPointer(rebasing: $0[..<media])) }
    }
}
