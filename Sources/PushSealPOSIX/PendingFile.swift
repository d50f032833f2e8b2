#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A new file written under a hidden temporary name beside its final path, and given that path
/// only by ``commit()``, when it is complete: no reader ever sees it half-written, an existing
/// file is never replaced, and a file that is not committed is removed when this is released, so
/// that a failure leaves nothing behind.
package final class PendingFile {
    /// The path the file gets on ``commit()``.
    package let path: String
    private let temporary: String
    private let descriptor: Int32
    private var committed = false

    /// Creates the temporary file with permission bits `mode`.
    /// - Throws: `EEXIST` when `path` already exists; the `errno` of a failed `open`.
    package init(path: String, mode: UInt16 = 0o600) throws(Descriptor.Failure) {
        guard access(path, F_OK) != 0 else { throw Descriptor.Failure(code: EEXIST) }
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let temporary = "\(directory)/.\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).part"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(mode))
        guard descriptor >= 0 else { throw Descriptor.Failure(code: errno) }
        self.path = path
        self.temporary = temporary
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
        if !committed { unlink(temporary) }
    }

    /// Appends `bytes`.
    package func write(_ bytes: UnsafeRawBufferPointer) throws(Descriptor.Failure) {
        try Descriptor.writeAll(descriptor, bytes)
    }

    /// Appends `bytes`.
    package func write(_ bytes: [UInt8]) throws(Descriptor.Failure) {
        try Descriptor.writeAll(descriptor, bytes)
    }

    /// Makes the file durable and gives it its path: `fsync`, then a hard link to the path (which
    /// fails with `EEXIST` rather than replace a file that appeared meanwhile), then the
    /// temporary name is removed.
    package func commit() throws(Descriptor.Failure) {
        guard fsync(descriptor) == 0, link(temporary, path) == 0 else { throw Descriptor.Failure(code: errno) }
        committed = true
        unlink(temporary)
    }
}
