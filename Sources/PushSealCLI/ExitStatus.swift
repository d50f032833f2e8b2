/// The exit statuses of cli-v1.md.
public struct ExitStatus: Hashable, Sendable {
    /// The process exit code.
    public let code: Int32

    /// Success.
    public static let success = ExitStatus(code: 0)
    /// The command ran but some items failed (a degraded notification, a payload that breaks
    /// Apple's rules or does not fit, a bad batch line).
    public static let itemsFailed = ExitStatus(code: 1)
    /// Usage error or unreadable input (missing file, not JSON, bad key file, refused store).
    public static let usage = ExitStatus(code: 2)
}

/// A usage error or unreadable input: one line on standard error, exit status 2.
public struct UsageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The message, naming the problem and where it is.
    public let message: String

    /// An error with `message`.
    public init(_ message: String) {
        self.message = message
    }

    /// A readable form that never shows key material.
    public var description: String { message }
}

/// A failure of the item being processed (a payload, a notification): exit status 1.
struct ItemFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
