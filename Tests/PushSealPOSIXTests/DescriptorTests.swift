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

@Suite("Pending files")
struct PendingFileTests {
    static func directory() -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pending-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("the file appears only on commit, complete; one never committed leaves nothing")
    func commitOrNothing() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/out.bin"
        do {
            let file = try PendingFile(path: path)
            try file.write([1, 2, 3])
            #expect(!FileManager.default.fileExists(atPath: path), "not visible before commit")
            try file.commit()
        }
        #expect(FileManager.default.contents(atPath: path) == Data([1, 2, 3]))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["out.bin"])
        do {
            let abandoned = try PendingFile(path: "\(directory)/abandoned.bin")
            try abandoned.write([9])
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["out.bin"], "nothing left behind")
    }

    @Test("an existing file is never replaced, whether it was there first or appeared meanwhile")
    func neverReplaces() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/out.bin"
        try Data([7]).write(to: URL(fileURLWithPath: path))
        #expect(throws: Descriptor.Failure(code: EEXIST)) { try PendingFile(path: "\(directory)/out.bin") }
        try FileManager.default.removeItem(atPath: path)
        let file = try PendingFile(path: path)
        try Data([8]).write(to: URL(fileURLWithPath: path))
        #expect(throws: Descriptor.Failure(code: EEXIST)) { try file.commit() }
        #expect(FileManager.default.contents(atPath: path) == Data([8]))
    }
}
