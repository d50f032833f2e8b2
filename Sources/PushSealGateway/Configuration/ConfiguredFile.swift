internal import PushSealGatewayModel
internal import PushSealGatewayStorage
internal import PushSealPOSIX

#if canImport(Glibc)
    import Glibc
#endif

/// The files the configuration names, read only when they are regular files and not links; those
/// that hold secrets (the APNs `.p8`, the sender's private JWKs) also only with no permission for
/// group or others (0600 or stricter), or, owned by root, with only reading for the group (0640
/// or stricter: root chose who reads it, as PostgreSQL allows for its key, and as a Kubernetes
/// Secret mounted with `fsGroup` comes, `root:<fsGroup>` 0440). Each is opened with
/// `O_NONBLOCK`, so that a FIFO in a file's place is refused at once instead of hanging the start
/// until someone writes to it.
enum ConfiguredFile {
    /// The bytes of a file that holds a secret; the caller wipes them once used.
    /// - Throws: ``GatewayError`` naming the file and what is wrong with it.
    static func secret(_ path: String) throws(GatewayError) -> [UInt8] {
        try read(path, secret: true)
    }

    /// The bytes of a file that holds no secret (a contract).
    static func contents(_ path: String) throws(GatewayError) -> [UInt8] {
        try read(path, secret: false)
    }

    private static func read(_ path: String, secret: Bool) throws(GatewayError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw GatewayError("\(path) cannot be read: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw GatewayError("\(path) is not a regular file")
        }
        guard !secret || info.st_mode & 0o077 == 0 || (info.st_uid == 0 && info.st_mode & 0o037 == 0) else {
            throw GatewayError(
                "\(path) holds a secret and must be readable by its owner only (chmod 600), or owned by root and "
                    + "readable by its group only (chmod 640), not mode " + String(info.st_mode & 0o777, radix: 8)
                    + (info.st_uid == 0 ? "" : " owned by user \(info.st_uid)"))
        }
        do {
            return try Descriptor.readAll(descriptor)
        } catch {
            throw GatewayError("\(path) cannot be read: \(error)")
        }
    }
}
