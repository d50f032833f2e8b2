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
            // The file appears only once every check passed; a failure leaves none.
            let file = try PendingFile(path: output)
            let opener = MediaStreamOpener(descriptor: descriptor)
            var chunk: [UInt8] = []
            while true {
                chunk.removeAll(keepingCapacity: true)
                guard try Descriptor.readChunk(source, appendingTo: &chunk) > 0 else { break }
                try chunk.withUnsafeBytes { bytes in try opener.append(bytes) { try file.write($0) } }
            }
            try opener.finish()
            try file.commit()
        } catch let failure as MediaFailure {
            console.errors.writeLine("pushseal media open: \(object): \(failure)")
            return .itemsFailed
        } catch let failure as Descriptor.Failure where failure.code == EEXIST {
            throw UsageError("media open: \(output) exists (it is never overwritten)")
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
