internal import PushSealPOSIX

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a command reads from: a file, or standard input for `-` or no argument.
struct InputSource {
    /// The path, or nil for standard input.
    let path: String?

    /// How messages name this input.
    var name: String { path ?? "standard input" }

    /// Opens the input for reading.
    func openDescriptor() throws(UsageError) -> Int32 {
        guard let path else { return 0 }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw UsageError("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        return descriptor
    }

    /// The whole input.
    func readAll() throws(UsageError) -> [UInt8] {
        let descriptor = try openDescriptor()
        defer { if path != nil { close(descriptor) } }
        do {
            return try Descriptor.readAll(descriptor)
        } catch {
            throw UsageError("cannot read \(name): \(error)")
        }
    }

    /// Calls `body` with each line (without its `\n` or `\r\n`) and its 1-based number, reading
    /// in blocks so that memory stays constant however long the input. A line longer than
    /// ``LineReader/maximumLineLength`` is passed as nil after its bytes are skipped.
    func forEachLine(_ body: (_ number: Int, _ line: [UInt8]?) -> Void) throws(UsageError) {
        let descriptor = try openDescriptor()
        defer { if path != nil { close(descriptor) } }
        var reader = LineReader(descriptor: descriptor)
        while true {
            let next: LineReader.Line?
            do {
                next = try reader.next()
            } catch {
                throw UsageError("cannot read \(name): \(error)")
            }
            guard let next else { return }
            body(next.number, next.bytes)
        }
    }
}

/// Splits a file descriptor's bytes into lines.
struct LineReader {
    /// Lines longer than this (16 MiB) are refused rather than held in memory.
    static let maximumLineLength = 16 * 1024 * 1024

    struct Line {
        let number: Int
        /// nil when the line was too long.
        let bytes: [UInt8]?
    }

    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private var finished = false
    private var lineNumber = 0

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// The next line, or nil at the end of the input.
    /// - Throws: ``Descriptor/Failure`` when reading fails.
    mutating func next() throws -> Line? {
        var overflowed = false
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                var end = newline
                if end > start, buffer[end - 1] == 0x0D { end -= 1 }
                let line = overflowed ? nil : Array(buffer[start..<end])
                start = newline + 1
                lineNumber += 1
                return Line(number: lineNumber, bytes: line)
            }
            if finished {
                guard start < buffer.count || overflowed else { return nil }
                let line = overflowed ? nil : Array(buffer[start...])
                start = buffer.count
                lineNumber += 1
                return Line(number: lineNumber, bytes: line)
            }
            if buffer.count - start > Self.maximumLineLength {
                overflowed = true
                start = buffer.count
            }
            if start > 0 {
                buffer.removeSubrange(0..<start)
                start = 0
            }
            finished = try Descriptor.readChunk(descriptor, appendingTo: &buffer) == 0
        }
    }
}
