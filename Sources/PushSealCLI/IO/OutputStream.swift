internal import PushSealPOSIX

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A buffered writer to a file descriptor: standard output for results, standard error for
/// diagnostics. Results are written in large blocks, not a system call per line.
final class OutputStream {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private let capacity: Int
    /// The first write that failed; everything written after it is dropped.
    private(set) var failure: Descriptor.Failure?
    /// Whether text lines are written through ``TerminalSafeText`` (diagnostics, which quote
    /// what attackers send).
    private let escapesControls: Bool

    init(descriptor: Int32, capacity: Int, escapesControls: Bool = false) {
        self.descriptor = descriptor
        self.capacity = capacity
        self.escapesControls = escapesControls
        buffer.reserveCapacity(capacity)
    }

    /// True when the descriptor is a terminal (progress is shown only then).
    var isTerminal: Bool { isatty(descriptor) == 1 }

    /// Writes `bytes` followed by a newline.
    func writeLine(_ bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
        buffer.append(0x0A)
        if buffer.count >= capacity { flush() }
    }

    /// Writes `text` followed by a newline; on a diagnostic stream, with every control and
    /// bidirectional character escaped.
    func writeLine(_ text: String) {
        writeLine(Array((escapesControls ? TerminalSafeText.escaping(text) : text).utf8))
    }

    /// Writes `text` as is, at once: progress on a terminal, built here from counts only (its
    /// leading carriage return is the point).
    func writeImmediately(_ text: String) {
        flush()
        buffer.append(contentsOf: text.utf8)
        flush()
    }

    /// Writes out everything buffered. A failure is kept in ``failure`` (the command's exit
    /// status reports it: lost output never exits 0).
    func flush() {
        if failure == nil {
            do {
                try Descriptor.writeAll(descriptor, buffer)
            } catch {
                failure = error
            }
        }
        // Private keys printed by `keys generate` and `keys rotate` pass through this buffer.
        buffer.withUnsafeMutableBytes { Descriptor.wipe($0.baseAddress, $0.count) }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes out everything buffered, and throws if any of it, or anything before it, was lost:
    /// for results that must not be acted on unless they were delivered (a rotated key).
    func commit() throws(UsageError) {
        flush()
        if let failure { throw UsageError("cannot write the result to standard output: \(failure)") }
    }
}

/// The two output streams a command writes to.
struct Console {
    /// Results, as JSON.
    let output = OutputStream(descriptor: 1, capacity: 64 * 1024)
    /// Diagnostics, progress and summaries, written at once.
    let errors = OutputStream(descriptor: 2, capacity: 0, escapesControls: true)
}
