#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A new file that gets its path only from ``commit()``, when it is complete: no reader ever sees
/// it half-written, an existing file is never replaced, and a file that is not committed leaves
/// nothing behind.
///
/// On Linux the file is created without a name (`O_TMPFILE`) and linked to its path on commit,
/// so that even a process killed mid-write (SIGKILL, an extension ended by the system) leaves no
/// file: decrypted media that was never checked cannot linger. Where the file system or the
/// platform lacks `O_TMPFILE`, it is written under a hidden name beside its path
/// (`.<name>.<pid>.<random>.part`), removed when this is released, and swept by
/// ``removeStale(in:olderThan:)`` if the process died first.
package final class PendingFile {
    /// The path the file gets on ``commit()``.
    package let path: String
    /// The hidden name, when the file has one (no `O_TMPFILE`).
    private let temporary: String?
    private let descriptor: Int32
    private var committed = false

    /// The suffix of a hidden name.
    private static let partSuffix = ".part"

    /// Creates the file with permission bits `mode`.
    /// - Throws: `EEXIST` when `path` already exists; the `errno` of a failed `open`.
    package init(path: String, mode: UInt16 = 0o600) throws(Descriptor.Failure) {
        guard access(path, F_OK) != 0 else { throw Descriptor.Failure(code: EEXIST) }
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        self.path = path
        if let anonymous = Self.openAnonymous(in: directory, mode: mode) {
            temporary = nil
            descriptor = anonymous
            return
        }
        let temporary = "\(directory)/.\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max))\(Self.partSuffix)"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(mode))
        guard descriptor >= 0 else { throw Descriptor.Failure(code: errno) }
        self.temporary = temporary
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
        if !committed, let temporary { unlink(temporary) }
    }

    /// Appends `bytes`.
    package func write(_ bytes: UnsafeRawBufferPointer) throws(Descriptor.Failure) {
        try Descriptor.writeAll(descriptor, bytes)
    }

    /// Appends `bytes`.
    package func write(_ bytes: [UInt8]) throws(Descriptor.Failure) {
        try Descriptor.writeAll(descriptor, bytes)
    }

    /// Makes the file durable and gives it its path: `fsync`, then a link to the path (which
    /// fails with `EEXIST` rather than replace a file that appeared meanwhile). A hidden name is
    /// then removed; one that gained a second hard link meanwhile is refused (`EMLINK`), since
    /// the other name would share what is written.
    package func commit() throws(Descriptor.Failure) {
        guard fsync(descriptor) == 0 else { throw Descriptor.Failure(code: errno) }
        if let temporary {
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { throw Descriptor.Failure(code: errno) }
            guard info.st_nlink == 1 else { throw Descriptor.Failure(code: EMLINK) }
            guard link(temporary, path) == 0 else { throw Descriptor.Failure(code: errno) }
            committed = true
            unlink(temporary)
        } else {
            try linkAnonymous()
            committed = true
        }
    }

    /// Removes the hidden files of dead writers from `directory`: a `.…part` file whose process
    /// no longer runs, or that is older than `seconds`, is what a killed process left.
    /// - Returns: how many were removed.
    @discardableResult
    package static func removeStale(in directory: String, olderThan seconds: Int) -> Int {
        guard let folder = opendir(directory) else { return 0 }
        defer { closedir(folder) }
        var removed = 0
        let now = time(nil)
        while let entry = readdir(folder) {
            let name = entry.pointee.name
            guard name.hasPrefix("."), name.hasSuffix(partSuffix) else { continue }
            let file = "\(directory)/\(name)"
            var info = stat()
            guard lstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            let parts = name.dropLast(partSuffix.count).split(separator: ".")
            let writer = parts.count >= 3 ? pid_t(parts[parts.count - 2]) : nil
            let writerGone = writer.map { $0 != getpid() && kill($0, 0) != 0 && errno == ESRCH } ?? true
            if writerGone || Int(now - info.st_mtim_seconds) > seconds, unlink(file) == 0 { removed += 1 }
        }
        return removed
    }

    #if os(Linux)
        /// `O_TMPFILE`, which Glibc's module does not export (a composite macro): an unnamed
        /// regular file in a directory, as `open(2)` describes it.
        private static let temporaryFileFlag = O_DIRECTORY | 0o20_000_000
        /// `AT_EMPTY_PATH` (`<fcntl.h>`, behind `_GNU_SOURCE`, so not exported either).
        private static let emptyPathFlag: Int32 = 0x1000

        /// An unnamed file in `directory`, or nil where the file system does not support one.
        private static func openAnonymous(in directory: String, mode: UInt16) -> Int32? {
            let descriptor = open(directory, O_WRONLY | O_CLOEXEC | temporaryFileFlag, mode_t(mode))
            return descriptor >= 0 ? descriptor : nil
        }

        /// Links the unnamed file to `path` through `/proc/self/fd` (no capability needed), or
        /// with `AT_EMPTY_PATH` where `/proc` is not mounted.
        private func linkAnonymous() throws(Descriptor.Failure) {
            if linkat(AT_FDCWD, "/proc/self/fd/\(descriptor)", AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0 { return }
            let failure = errno
            guard failure == ENOENT, linkat(descriptor, "", AT_FDCWD, path, Self.emptyPathFlag) == 0 else {
                throw Descriptor.Failure(code: failure == ENOENT ? errno : failure)
            }
        }
    #else
        private static func openAnonymous(in directory: String, mode: UInt16) -> Int32? { nil }

        private func linkAnonymous() throws(Descriptor.Failure) {
            throw Descriptor.Failure(code: ENOTSUP)
        }
    #endif
}

extension stat {
    /// The modification time's whole seconds, on either platform's `stat`.
    fileprivate var st_mtim_seconds: Int {
        #if canImport(Darwin)
            Int(st_mtimespec.tv_sec)
        #else
            Int(st_mtim.tv_sec)
        #endif
    }
}
