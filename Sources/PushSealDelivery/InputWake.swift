#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Ends a client's wait for its input: an input that said ``DeliveryItem/notYet`` raises it once
/// it may have more (the gateway's feed, when a claim lands), and the client, which was reading
/// its answers meanwhile, asks the input again at once instead of at its next poll.
///
/// It is the read end of a pipe the client polls beside its connections; a raise writes one byte,
/// and the client drains them when it wakes. A raise before the client waits is kept until it
/// does, so none is lost between the input's answer and the client's wait.
///
/// ```swift
/// let wake = try InputWake()
/// // on the thread that makes more ready:
/// wake.raise()
/// // on the client's:
/// client.deliver(items, inputWake: wake) { result in … }
/// ```
public final class InputWake: Sendable {
    /// Readable while a raise is pending.
    let descriptor: Int32
    private let writeEnd: Int32

    /// A wake of its own pipe.
    /// - Throws: ``DeliveryError`` when the process can open no more descriptors.
    public init() throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw DeliveryError("no pipe for an input wake: errno \(errno)") }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        descriptor = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(descriptor)
        close(writeEnd)
    }

    /// Wakes the client if it waits, or else its next wait at once. From any thread.
    public func raise() {
        var byte: UInt8 = 1
        // A full pipe (thousands of raises nobody took yet) is raised already.
        _ = write(writeEnd, &byte, 1)
    }

    /// Takes every raise pending: the client, awake now, is about to ask its input again, which
    /// sees whatever those raises announced.
    func clear() {
        var buffer = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        let size = MemoryLayout.size(ofValue: buffer)
        while withUnsafeMutableBytes(of: &buffer, { read(descriptor, $0.baseAddress, size) }) == size {}
    }
}
