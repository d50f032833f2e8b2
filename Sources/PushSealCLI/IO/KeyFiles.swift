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
