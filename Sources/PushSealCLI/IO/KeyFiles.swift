internal import PushSealCore
internal import PushSealPOSIX

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reading and writing key files, every failure a ``UsageError`` (status 2) naming the file.
enum KeyFiles {
    /// A private JWK from `path` (standard input for nil).
    static func privateKey(_ path: String?) throws(UsageError) -> PrivateKey {
        let source = InputSource(path: path)
        var bytes = try source.readAll()
        defer { SecureMemory.wipe(&bytes) }
        do {
            return try PrivateKey(jwk: bytes)
        } catch {
            throw UsageError("bad key file \(source.name): \(Self.detail(error))")
        }
    }

    /// A recipient JWK (public, or shared `oct`) from `path`.
    static func recipient(_ path: String) throws(UsageError) -> Recipient {
        var bytes = try InputSource(path: path).readAll()
        defer { SecureMemory.wipe(&bytes) }
        do {
            return try Recipient(jwk: bytes)
        } catch {
            throw UsageError("bad key file \(path): \(Self.detail(error))")
        }
    }

    /// The bytes of a file that holds a secret: a regular file, not a link, readable by its owner
    /// only (0600 or stricter), as SSH asks of its keys. The caller wipes the bytes once used.
    static func secretFile(_ path: String) throws(UsageError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw UsageError("cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw UsageError("\(path) is not a regular file")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw UsageError(
                "\(path) holds a private key and must be readable by its owner only (chmod 600), not mode "
                    + String(info.st_mode & 0o777, radix: 8))
        }
        do {
            return try Descriptor.readAll(descriptor)
        } catch {
            throw UsageError("cannot read \(path): \(error)")
        }
    }

    /// Whether anything (a file, a directory, a link, even a dangling one) is at `path`.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Writes `bytes` to a new file `path` with mode 0600; an existing file is never overwritten.
    /// A file whose write fails leaves nothing behind, so that a retry is not refused as existing.
    static func writeNew(_ bytes: [UInt8], to path: String) throws(UsageError) {
        do {
            let file = try PendingFile(path: path)
            try file.write(bytes)
            try file.commit()
        } catch {
            let reason = error.code == EEXIST ? "the file exists (it is never overwritten)" : error.description
            throw UsageError("cannot write \(path): \(reason)")
        }
    }

    /// The message of a library error, without its code prefix.
    static func detail(_ error: any Error) -> String {
        (error as? PushSealError)?.detail ?? "\(error)"
    }
}
