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
    /// Where an object is until `--url` says: a name that can never resolve (RFC 6761), with the
    /// object's file name percent-encoded but for RFC 3986's unreserved characters, so that any
    /// name gives a URL that media-v1's URL rule accepts.
    static func placeholderURL(for object: String) -> String {
        let name = object.split(separator: "/").last.map(String.init) ?? "object"
        var path: [UInt8] = []
        for byte in name.utf8 {
            if byte.isUnreserved {
                path.append(byte)
            } else {
                path.append(UInt8(ascii: "%"))
                HexDigits.append(byte, uppercase: true, to: &path)
            }
        }
        return "https://media.invalid/" + String(decoding: path, as: UTF8.self)
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
        let descriptor: MediaDescriptor
        switch try Self.descriptor(descriptorFile) {
        case .success(let read): descriptor = read
        case .failure(let failure):
            console.errors.writeLine("pushseal media open: \(descriptorFile): \(failure)")
            return .itemsFailed
        }
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

    /// A descriptor file (cli-v1.md, "Media"): a JSON object that is the descriptor itself, or,
    /// when it has a member `media`, a payload whose `media` is the descriptor.
    /// - Returns: the descriptor, or why it is not one: text that is not one JSON object (a
    ///   duplicate member, trailing data) is `media-integrity`, as a malformed descriptor is.
    /// - Throws: ``UsageError`` when the file cannot be read.
    static func descriptor(_ path: String) throws(UsageError) -> Result<MediaDescriptor, MediaFailure> {
        var bytes = try InputSource(path: path).readAll()
        defer { SecureMemory.wipe(&bytes) }
        let root: JSONValue
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            return .failure(MediaFailure(.integrity, "not a JSON descriptor: \(error)"))
        }
        guard let object = root.objectValue else {
            return .failure(
                MediaFailure(.integrity, "$ must be a JSON object (a descriptor, or a payload with \"media\")"))
        }
        guard let media = object["media"] else {
            return Result { () throws(MediaFailure) in try MediaDescriptor(json: object) }
        }
        guard let descriptor = media.objectValue else {
            return .failure(MediaFailure(.integrity, "$.media must be a JSON object"))
        }
        return Result { () throws(MediaFailure) in try MediaDescriptor(json: descriptor) }
    }
}
extension UInt8 {
    /// An RFC 3986 unreserved character: `A–Z a–z 0–9 - . _ ~`.
    fileprivate var isUnreserved: Bool {
        switch self {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }
}
