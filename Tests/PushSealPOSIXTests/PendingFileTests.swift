import Foundation
import PushSealPOSIX
import Testing

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

    static func names(_ folder: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: folder))?.sorted() ?? []
    }

    @Test("on Linux a pending file has no name at all until commit, and none after it is dropped")
    func unnamedUntilCommit() throws {
        let folder = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        do {
            let file = try PendingFile(path: "\(folder)/a.jpg")
            try file.write(Array("plaintext".utf8))
            #expect(Self.names(folder).isEmpty, "a killed process would leave \(Self.names(folder))")
            try file.commit()
        }
        #expect(Self.names(folder) == ["a.jpg"])
        #expect(try String(contentsOfFile: "\(folder)/a.jpg", encoding: .utf8) == "plaintext")
        let mode = try FileManager.default.attributesOfItem(atPath: "\(folder)/a.jpg")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        do {
            let dropped = try PendingFile(path: "\(folder)/b.jpg")
            try dropped.write(Array("never checked".utf8))
        }
        #expect(Self.names(folder) == ["a.jpg"], "a dropped file leaves nothing")
        #expect(throws: Descriptor.Failure.self) { try PendingFile(path: "\(folder)/a.jpg") }
    }

    @Test("stale hidden files are swept: a dead writer's, or an old one; a live writer's fresh file stays")
    func sweep() throws {
        let folder = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var dead: pid_t = 4_000_000
        while kill(dead, 0) == 0 || errno != ESRCH { dead -= 1 }
        let mine = getpid()
        for name in [".x.jpg.\(dead).7.part", ".y.jpg.\(mine).8.part", ".z.jpg.\(mine).9.part", "keep.jpg"] {
            try Data("decrypted".utf8).write(to: URL(fileURLWithPath: "\(folder)/\(name)"))
        }
        let old = Date(timeIntervalSinceNow: -600)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: "\(folder)/.z.jpg.\(mine).9.part")
        #expect(PendingFile.removeStale(in: folder, olderThan: 120) == 2)
        #expect(Self.names(folder) == [".y.jpg.\(mine).8.part", "keep.jpg"])
    }
}
