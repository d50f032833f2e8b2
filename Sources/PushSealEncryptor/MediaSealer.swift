public import PushSealCore
internal import PushSealPOSIX

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Encrypts a media file into a media object (media-v1.md) in constant memory: the type is
/// sniffed from the file's first bytes and checked against Apple's limits, the file is read and
/// sealed 64 KiB at a time, and the object is written to a new file, which appears only complete.
///
/// ```swift
/// let descriptor = try MediaSealer.seal(file: "photo.jpg", to: "photo.psm", url: "https://cdn.example.com/m/1.psm")
/// payload["media"] = .object(descriptor.json)   // then seal the payload as usual
/// ```
public enum MediaSealer {
    /// Seals `file` into a new file `output`, to be served at `url`.
    /// - Throws: `PushSealError.Code.invalidPayload` naming the file and what is wrong (unreadable,
    ///   empty, not a type a notification can attach, over Apple's limit, an output that exists), or a
    ///   `url` that the media URL rule refuses.
    public static func seal(file: String, to output: String, url: String) throws -> MediaDescriptor {
        do {
            try MediaDescriptor.checkURL(url)
        } catch {
            throw PushSealError(.invalidPayload, "--url \(url): \(error)")
        }
        // Non-blocking, so that a FIFO is refused below instead of waiting here for a writer.
        let input = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard input >= 0 else { throw failure(file, "cannot be read", errno) }
        defer { close(input) }
        var info = stat()
        guard fstat(input, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw PushSealError(.invalidPayload, "\(file) is not a regular file")
        }
        let length = Int(info.st_size)
        guard length > 0 else { throw PushSealError(.invalidPayload, "\(file) is empty: there is no media to attach") }
        var chunk: [UInt8] = []
        chunk.reserveCapacity(Descriptor.chunkByteCount)
        func readChunk() throws -> Int {
            chunk.removeAll(keepingCapacity: true)
            do {
                return try Descriptor.readChunk(input, appendingTo: &chunk)
            } catch {
                throw failure(file, "cannot be read", error.code)
            }
        }
        var first = try readChunk()
        let type = try MediaType.sniff(chunk)
        let sealer = try MediaStreamSealer(type: type, length: length)
        let out: PendingFile
        do {
            out = try PendingFile(path: output, mode: 0o644)
        } catch {
            throw failure(
                output, error.code == EEXIST ? "exists (it is never overwritten)" : "cannot be created", error.code)
        }
        func emit(_ bytes: [UInt8]) throws {
            do {
                try out.write(bytes)
            } catch {
                throw failure(output, "cannot be written", error.code)
            }
        }
        while first > 0 {
            try chunk.withUnsafeBytes { try sealer.append($0, emit: emit) }
            first = try readChunk()
        }
        let descriptor = try sealer.finish(url: url, emit: emit)
        do {
            try out.commit()
        } catch {
            throw failure(output, "cannot be written", error.code)
        }
        return try descriptor.at(url)
    }

    private static func failure(_ path: String, _ what: String, _ code: Int32) -> PushSealError {
        PushSealError(.invalidPayload, "\(path) \(what): \(String(cString: strerror(code)))")
    }
}
