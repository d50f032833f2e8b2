internal import PushSealCore
internal import PushSealPOSIX

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The key store's directory, opened once, and every file in it opened relative to that
/// descriptor under the container's trust rules.
///
/// The app-group container is shared with the app, so its contents are untrusted input. The
/// directory is opened without following a symbolic link and must be a directory owned by this
/// process's user with no group or other permission bits. Each file is opened with `O_NOFOLLOW`
/// (a link is refused), `O_NONBLOCK` (a FIFO cannot hang the opener) and `O_CLOEXEC`, and then
/// checked with `fstat` on the same descriptor, so nothing can be swapped between the check
/// and the use: a regular file, owned by this process's user, mode without group or other bits,
/// and, when read whole, no larger than the cap.
final class StoreDirectory {
    /// The directory's path, for messages.
    let path: String
    private let descriptor: Int32

    /// Opens the store directory at `path`.
    /// - Parameter allowed: when the directory's mode is loose and it holds nothing but files
    ///   named here, make it 0700 instead of refusing it (`keys init` on a fresh
    ///   directory); a directory that holds anything else, keys above all, is refused.
    init(path: String, tightenIfEmptyBut allowed: Set<String>? = nil) throws(ContainerFailure) {
        self.path = path
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            var info = stat()
            if code == ENOTDIR || code == ELOOP, lstat(path, &info) == 0 {
                // O_NOFOLLOW with O_DIRECTORY reports a link as "not a directory" on Linux.
                throw .refused(
                    path,
                    info.st_mode & S_IFMT == S_IFLNK
                        ? "is a symbolic link, which the store never follows"
                        : "is not a directory (a key store is a directory)")
            }
            throw .system("open", path, code)
        }
        self.descriptor = descriptor
        let info = try Self.status(of: descriptor, path)
        guard info.st_uid == geteuid() else {
            throw .refused(path, "is owned by uid \(info.st_uid), not by this process's user (uid \(geteuid()))")
        }
        let mode = info.st_mode & 0o7777
        if mode & 0o077 != 0 {
            guard let allowed, (try? names())?.allSatisfy(allowed.contains) == true, fchmod(descriptor, 0o700) == 0
            else {
                throw .refused(
                    path, "is open to group or others (mode \(String(mode, radix: 8))): run `chmod 700 \(path)`")
            }
        }
    }

    deinit { close(descriptor) }

    /// The path of `name` in the directory, for messages.
    func pathOf(_ name: String) -> String { "\(path)/\(name)" }

    /// True when `name` exists in the directory (as anything, a link included).
    func contains(_ name: String) -> Bool {
        var info = stat()
        return fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0
    }

    /// Opens `name` under the trust rules.
    /// - Parameters:
    ///   - writable: open for reading and writing.
    ///   - create: create it (mode 0600) when missing.
    ///   - maximumSize: refuse a larger file.
    /// - Returns: the descriptor; the caller closes it.
    func openFile(_ name: String, writable: Bool = false, create: Bool = false, maximumSize: Int? = nil)
        throws(ContainerFailure) -> Int32
    {
        var flags = (writable ? O_RDWR : O_RDONLY) | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
        if create { flags |= O_CREAT }
        let file = openat(descriptor, name, flags, 0o600)
        guard file >= 0 else { throw .system("open", pathOf(name), errno) }
        do throws(ContainerFailure) {
            try Self.checkFile(file, pathOf(name), maximumSize: maximumSize)
            return file
        } catch {
            close(file)
            throw error
        }
    }

    /// The whole of `name`, refused when over `maximumSize` bytes (checked before reading, and
    /// again while reading, in case it grows).
    func read(_ name: String, maximumSize: Int) throws(ContainerFailure) -> [UInt8] {
        let file = try openFile(name, maximumSize: maximumSize)
        defer { close(file) }
        var bytes: [UInt8] = []
        do {
            while try Descriptor.readChunk(file, appendingTo: &bytes) > 0 {
                guard bytes.count <= maximumSize else {
                    SecureMemory.wipe(&bytes)
                    throw ContainerFailure.refused(pathOf(name), "grew past \(maximumSize) bytes while being read")
                }
            }
        } catch let failure as ContainerFailure {
            throw failure
        } catch {
            throw .system("read", pathOf(name), (error as? Descriptor.Failure)?.code ?? EIO)
        }
        return bytes
    }

    /// Replaces `name` with `bytes` so that a reader sees the old file or the new one, never a
    /// mix, and a crash leaves one of the two: a temporary file in the directory, written, made
    /// 0600, fsynced, renamed over `name`, then the directory fsynced.
    func replace(_ name: String, with bytes: [UInt8]) throws(ContainerFailure) {
        let temporary = ".\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let file = openat(descriptor, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard file >= 0 else { throw .system("create", pathOf(temporary), errno) }
        var renamed = false
        defer { if !renamed { unlinkat(descriptor, temporary, 0) } }
        do {
            defer { close(file) }
            do {
                try Descriptor.writeAll(file, bytes)
            } catch {
                throw .system("write", pathOf(temporary), error.code)
            }
            guard fchmod(file, 0o600) == 0 else { throw .system("chmod", pathOf(temporary), errno) }
            guard fsync(file) == 0 else { throw .system("fsync", pathOf(temporary), errno) }
        }
        // A new file each time: it takes the data-protection class before it takes the name.
        StoreProtection.apply(to: pathOf(temporary))
        guard renameat(descriptor, temporary, descriptor, name) == 0 else {
            throw .system("rename", pathOf(name), errno)
        }
        renamed = true
        guard fsync(descriptor) == 0 else { throw .system("fsync", path, errno) }
    }

    /// The names in the directory, without `.` and `..`.
    func names() throws(ContainerFailure) -> [String] {
        let copy = dup(descriptor)
        guard copy >= 0, let directory = fdopendir(copy) else {
            throw .system("opendir", path, errno)
        }
        defer { closedir(directory) }
        rewinddir(directory)
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = entry.pointee.name
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Removes `name`, if it exists.
    func remove(_ name: String) {
        unlinkat(descriptor, name, 0)
    }

    /// Runs `body` holding an exclusive `flock` on `name` (created 0600 if missing, under the
    /// trust rules), which serialises writers in different processes. Readers never take it.
    /// The lock is held only while `body` writes: iOS ends an app that is suspended holding a
    /// lock on a file of a shared container (`0xdead10cc`).
    func withExclusiveLock<Result>(_ name: String, _ body: () throws -> Result) throws -> Result {
        let file = try openFile(name, writable: true, create: true)
        defer { close(file) }
        StoreProtection.apply(to: pathOf(name))
        while flock(file, LOCK_EX) != 0 {
            guard errno == EINTR else { throw ContainerFailure.system("flock", pathOf(name), errno) }
        }
        defer { flock(file, LOCK_UN) }
        return try body()
    }

    private static func status(of descriptor: Int32, _ path: String) throws(ContainerFailure) -> stat {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .system("fstat", path, errno) }
        return info
    }

    /// The checks every file of the store passes, on its open descriptor.
    static func checkFile(_ descriptor: Int32, _ path: String, maximumSize: Int?) throws(ContainerFailure) {
        let info = try status(of: descriptor, path)
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw .refused(path, "is \(kindName(info.st_mode)), not a regular file")
        }
        guard info.st_uid == geteuid() else {
            throw .refused(path, "is owned by uid \(info.st_uid), not by this process's user (uid \(geteuid()))")
        }
        // A second name for the inode may be another database or a file the attacker reads:
        // writing through it would write into that file. No name at all is fine: a writer renamed
        // a new file over this one after it was opened, and the reader keeps a whole old version.
        guard info.st_nlink <= 1 else {
            throw .refused(path, "has \(info.st_nlink) hard links, not 1: another name shares this file")
        }
        let mode = info.st_mode & 0o7777
        guard mode & 0o077 == 0 else {
            throw .refused(
                path, "is readable by group or others (mode \(String(mode, radix: 8))): run `chmod 600 \(path)`")
        }
        if let maximumSize, Int(info.st_size) > maximumSize {
            throw .refused(path, "is \(info.st_size) bytes, over the \(maximumSize)-byte limit")
        }
    }

    private static func kindName(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFLNK: "a symbolic link"
        default: "not a regular file"
        }
    }
}
