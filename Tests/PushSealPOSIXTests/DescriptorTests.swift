import Foundation
import PushSealPOSIX
import Testing

@Suite("Descriptor reads and writes")
struct DescriptorTests {
    /// 200 KB: several chunks, and more than a pipe holds, so writer and reader must interleave.
    static let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }

    @Test("what writeAll puts into a pipe, readAll gets back whole")
    func roundTrip() throws {
        let pipe = Pipe()
        let writer = Thread {
            try? Descriptor.writeAll(pipe.fileHandleForWriting.fileDescriptor, Self.bytes)
            try? pipe.fileHandleForWriting.close()
        }
        writer.start()
        let read = try Descriptor.readAll(pipe.fileHandleForReading.fileDescriptor)
        #expect(read == Self.bytes)
    }

    @Test("readChunk appends one read and reports 0 at end of file")
    func chunks() throws {
        let pipe = Pipe()
        try Descriptor.writeAll(pipe.fileHandleForWriting.fileDescriptor, Array("abc".utf8))
        try pipe.fileHandleForWriting.close()
        var buffer = Array("x".utf8)
        let descriptor = pipe.fileHandleForReading.fileDescriptor
        #expect(try Descriptor.readChunk(descriptor, appendingTo: &buffer) == 3)
        #expect(buffer == Array("xabc".utf8))
        #expect(try Descriptor.readChunk(descriptor, appendingTo: &buffer) == 0)
        #expect(buffer == Array("xabc".utf8))
    }

    @Test("a failed call throws its errno, described by strerror")
    func failures() {
        #expect(throws: Descriptor.Failure(code: EBADF)) { try Descriptor.readAll(-1) }
        #expect(throws: Descriptor.Failure(code: EBADF)) { try Descriptor.writeAll(-1, [1]) }
        #expect(Descriptor.Failure(code: EBADF).description == String(cString: strerror(EBADF)))
    }
}
