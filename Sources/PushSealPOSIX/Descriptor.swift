#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whole reads and writes on a file descriptor: a short count is continued and a call that a
/// signal interrupts (`EINTR`) is retried, so callers see only success or a real error.
package enum Descriptor {
    /// A failed `read` or `write`, with its `errno`.
    package struct Failure: Error, Equatable, CustomStringConvertible {
        /// The `errno`.
        package let code: Int32

        /// Wraps an `errno`.
        package init(code: Int32) {
            self.code = code
        }

        /// `strerror(code)`.
        package var description: String { String(cString: strerror(code)) }
    }

    /// How much one `read` asks for.
    package static let chunkByteCount = 65_536

    /// Reads until end of file. The caller wipes the result if it is secret; an input longer
    /// than one chunk grows the array, and the buffers it outgrows are freed unwiped (key files
    /// are far smaller than a chunk).
    package static func readAll(_ descriptor: Int32) throws(Failure) -> [UInt8] {
        var bytes: [UInt8] = []
        while try readChunk(descriptor, appendingTo: &bytes) > 0 {}
        return bytes
    }

    /// One `read` of up to ``chunkByteCount`` bytes, appended to `buffer`.
    /// - Returns: the number of bytes read: 0 at end of file.
    package static func readChunk(_ descriptor: Int32, appendingTo buffer: inout [UInt8]) throws(Failure) -> Int {
        // A scratch block and one bulk append: no per-byte work, which matters in debug builds.
        // Key files pass through it, so what was read is wiped before the block is freed.
        let chunk = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: chunkByteCount)
        var used = 0
        defer {
            wipe(UnsafeMutableRawPointer(chunk.baseAddress), used)
            chunk.deallocate()
        }
        while true {
            let count = read(descriptor, chunk.baseAddress, chunk.count)
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                throw Failure(code: code)
            }
            used = count
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[..<count]))
            return count
        }
    }

    /// Zeroes `count` bytes in a way the optimiser may not remove.
    package static func wipe(_ bytes: UnsafeMutableRawPointer?, _ count: Int) {
        guard let bytes, count > 0 else { return }
        #if canImport(Glibc)
            explicit_bzero(bytes, count)
        #else
            _ = memset_s(bytes, count, 0, count)
        #endif
    }

    /// Writes `text` and a newline at once, ignoring failure: for a diagnostic on standard error
    /// from a context that holds no output stream.
    package static func writeLine(_ descriptor: Int32, _ text: String) {
        try? writeAll(descriptor, Array((text + "\n").utf8))
    }

    /// Writes every byte of `bytes`.
    package static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) throws(Failure) {
        let failure: Failure? = bytes.withUnsafeBytes { raw in
            do throws(Failure) {
                try writeAll(descriptor, raw)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    /// Writes every byte of `bytes`, without copying them.
    package static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let count = write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(code: errno)
            }
            offset += count
        }
    }
}
