internal import PushSealPOSIX

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few POSIX file operations the key store needs, with the durability steps spelled out.
enum FileSystem {
    /// A failed system call, with the path and `strerror`.
    struct Failure: Error, CustomStringConvertible {
        let operation: String
        let path: String
        let code: Int32

        var description: String { "\(operation) \(path): \(String(cString: strerror(code)))" }
        var isMissing: Bool { code == ENOENT }
    }

    /// The permission bits of `path`, or nil when it does not exist.
    static func mode(_ path: String) throws -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw Failure(operation: "stat", path: path, code: errno)
        }
        return info.st_mode & 0o7777
    }

    /// True when `path` is a directory.
    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The names in directory `path`, without `.` and `..`.
    static func contents(_ path: String) throws -> [String] {
        guard let directory = opendir(path) else { throw Failure(operation: "opendir", path: path, code: errno) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Creates directory `path` with `mode` if missing.
    static func makeDirectory(_ path: String, mode: mode_t) throws {
        if mkdir(path, mode) != 0 && errno != EEXIST { throw Failure(operation: "mkdir", path: path, code: errno) }
    }

    /// The whole file.
    static func readFile(_ path: String) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(operation: "open", path: path, code: errno) }
        defer { close(descriptor) }
        do {
            return try Descriptor.readAll(descriptor)
        } catch {
            throw Failure(operation: "read", path: path, code: error.code)
        }
    }

    /// Replaces `path` with `bytes` so that a reader sees the old file or the new one, never a
    /// mix, and a crash leaves one of the two: write a temporary file in the same directory,
    /// fsync it, rename it over `path`, fsync the directory.
    static func writeAtomically(_ bytes: [UInt8], to path: String, mode: mode_t) throws {
        let directory = parent(of: path)
        let temporary = "\(directory)/.\(basename(of: path)).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw Failure(operation: "create", path: temporary, code: errno) }
        var renamed = false
        defer { if !renamed { unlink(temporary) } }
        do {
            defer { close(descriptor) }
            do {
                try Descriptor.writeAll(descriptor, bytes)
            } catch {
                throw Failure(operation: "write", path: temporary, code: error.code)
            }
            guard fchmod(descriptor, mode) == 0 else { throw Failure(operation: "chmod", path: temporary, code: errno) }
            guard fsync(descriptor) == 0 else { throw Failure(operation: "fsync", path: temporary, code: errno) }
        }
        guard rename(temporary, path) == 0 else { throw Failure(operation: "rename", path: path, code: errno) }
        renamed = true
        try syncDirectory(directory)
    }

    /// Removes `path`, if it exists.
    static func remove(_ path: String) {
        unlink(path)
    }

    /// Makes a rename in `directory` durable.
    static func syncDirectory(_ directory: String) throws {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(operation: "open", path: directory, code: errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw Failure(operation: "fsync", path: directory, code: errno) }
    }

    /// Runs `body` holding an exclusive `flock` on `path` (created 0600 if missing), which
    /// serialises writers in different processes. Readers never take it.
    static func withExclusiveLock<Result>(_ path: String, _ body: () throws -> Result) throws -> Result {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Failure(operation: "open", path: path, code: errno) }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw Failure(operation: "flock", path: path, code: errno) }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func basename(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
