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

    init(descriptor: Int32, capacity: Int) {
        self.descriptor = descriptor
        self.capacity = capacity
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

    /// Writes `text` followed by a newline.
    func writeLine(_ text: String) {
        writeLine(Array(text.utf8))
    }

    /// Writes `text` as is, at once (used for progress on a terminal).
    func writeImmediately(_ text: String) {
        flush()
        buffer.append(contentsOf: text.utf8)
        flush()
    }

    /// Writes out everything buffered.
    func flush() {
        // A failed write (a closed pipe) has nowhere to be reported: the output is dropped.
        try? Descriptor.writeAll(descriptor, buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}

/// The two output streams a command writes to.
struct Console {
    /// Results, as JSON.
    let output = OutputStream(descriptor: 1, capacity: 64 * 1024)
    /// Diagnostics, progress and summaries, written at once.
    let errors = OutputStream(descriptor: 2, capacity: 0)
}
