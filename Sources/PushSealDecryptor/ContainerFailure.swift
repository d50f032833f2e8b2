#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a file of the shared container was not used: a failed system call, or a file that the
/// trust rules of ``StoreDirectory`` refuse (a link, a FIFO, another owner, a loose mode, a size
/// over the cap). The message names the file and, where there is one, the fix.
struct ContainerFailure: Error, CustomStringConvertible {
    /// The file or directory concerned.
    let path: String
    /// What is wrong with it, e.g. `is a FIFO, not a regular file`.
    let problem: String
    /// True when the file does not exist (`ENOENT`).
    let isMissing: Bool
    /// True when the system refused the file itself (`EPERM`): on iOS, data protection before the
    /// device's first unlock after a restart.
    var isLocked = false

    var description: String { "\(path) \(problem)" }

    /// A failed system call on `path`.
    static func system(_ operation: String, _ path: String, _ code: Int32) -> ContainerFailure {
        let problem =
            code == ELOOP
            ? "is a symbolic link, which the store never follows"
            : "could not be opened (\(operation): \(String(cString: strerror(code))))"
        return ContainerFailure(path: path, problem: problem, isMissing: code == ENOENT, isLocked: code == EPERM)
    }

    /// A file that exists but breaks the trust rules.
    static func refused(_ path: String, _ problem: String) -> ContainerFailure {
        ContainerFailure(path: path, problem: problem, isMissing: false)
    }
}
