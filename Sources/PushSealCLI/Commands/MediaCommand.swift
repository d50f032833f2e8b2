internal import PushSealCore
internal import PushSealEncryptor
internal import PushSealPOSIX

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `pushseal media seal|open`: media objects (media-v1.md) for the server, and for support.
enum MediaCommand {
    /// Where an object is until `--url` says: a name that can never resolve.
    static func placeholderURL(for object: String) -> String {
        "https://media.invalid/\(object.split(separator: "/").last.map(String.init) ?? "object")"
    }

    static func seal(file: String, output: String, url: String?, console: Console) throws(UsageError) -> ExitStatus {
        let descriptor: MediaDescriptor
        do {
            descriptor = try MediaSealer.seal(file: file, to: output, url: url ?? placeholderURL(for: output))
        } catch {
            throw UsageError("media seal: \(KeyFiles.detail(error))")
        }
        if url == nil {
            console.errors.writeLine(
                "pushseal media seal: no --url: the descriptor names \(descriptor.url); set \"url\" to where \(output) is served"
            )
        }
        console.errors.writeLine(
            "pushseal: sealed \(descriptor.type) (\(descriptor.length) bytes) into \(output) (\(descriptor.size) bytes); "
                + "the descriptor holds the object's key: put it only into sealed content")
        var bytes = JSONWriter.bytes(.object(descriptor.json))
        defer { SecureMemory.wipe(&bytes) }
        console.output.writeLine(bytes)
        return .success
    }

    static func open(object: String, descriptorFile: String, output: String, console: Console) throws(UsageError)
        -> ExitStatus
    {
        let descriptor = try Self.descriptor(descriptorFile)
        let input = InputSource(path: object)
        let source = try input.openDescriptor()
        defer { close(source) }
        do {
            try MediaFile.write(to: output) { write in
                let opener = MediaStreamOpener(descriptor: descriptor)
                var chunk: [UInt8] = []
                while true {
                    chunk.removeAll(keepingCapacity: true)
                    guard try Descriptor.readChunk(source, appendingTo: &chunk) > 0 else { break }
                    try chunk.withUnsafeBytes { try opener.append($0, write: write) }
                }
                try opener.finish()
            }
        } catch let failure as MediaFailure {
            console.errors.writeLine("pushseal media open: \(object): \(failure)")
            return .itemsFailed
        } catch {
            throw UsageError("media open: \(object): \(error)")
        }
        console.output.writeLine(
            JSONWriter.bytes(
                .object(
                    JSONObject([
                        ("file", .string(output)), ("type", .string(descriptor.type.name)),
                        ("length", .number(JSONNumber(descriptor.length))),
                    ]))))
        return .success
    }

    /// A descriptor file: the descriptor itself, or a payload whose `media` member is one.
    static func descriptor(_ path: String) throws(UsageError) -> MediaDescriptor {
        var bytes = try InputSource(path: path).readAll()
        defer { SecureMemory.wipe(&bytes) }
        guard let object = try? JSONParser.parse(bytes).objectValue else {
            throw UsageError("bad descriptor \(path): not a JSON object")
        }
        do {
            return try MediaDescriptor(json: object["media"]?.objectValue ?? object)
        } catch {
            throw UsageError("bad descriptor \(path): \(error)")
        }
    }
}

/// Writes a file that becomes visible only once complete and checked: the bytes go to a hidden
/// temporary file beside it, which is renamed into place when `body` returns and removed when it
/// throws, so that nothing is left behind on failure.
enum MediaFile {
    static func write(
        to path: String, _ body: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let temporary = "\(directory)/.\(name).\(getpid()).part"
        let file = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard file >= 0 else { throw UsageError("cannot create \(temporary): \(String(cString: strerror(errno)))") }
        var kept = false
        defer {
            close(file)
            if !kept { unlink(temporary) }
        }
        try body { bytes in
            try Descriptor.writeAll(file, bytes)
        }
        guard fsync(file) == 0 else {
            throw UsageError("cannot write \(temporary): \(String(cString: strerror(errno)))")
        }
        guard access(path, F_OK) != 0 else { throw UsageError("\(path) exists (it is never overwritten)") }
        guard rename(temporary, path) == 0 else {
            throw UsageError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        kept = true
    }
}
