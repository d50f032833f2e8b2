// libFuzzer target: arbitrary bytes as a media object, through the stream opener.
//
// The first byte picks one of the descriptors of Tests/PushSealCoreTests/Vectors/media-v1.json
// (PUSHSEAL_FUZZ_MEDIA_VECTORS points at it); the rest is fed to the opener in pieces whose sizes
// the input also decides. Beyond "no crash": only a refusal with a media-v1 reason is allowed,
// and an object that opens must be the vector's own, giving exactly its media.
import Foundation
import PushSealCore
import PushSealPrimitives

private let vectors: [(descriptor: MediaDescriptor, object: [UInt8])] = {
    let path =
        ProcessInfo.processInfo.environment["PUSHSEAL_FUZZ_MEDIA_VECTORS"]
        ?? "Tests/PushSealCoreTests/Vectors/media-v1.json"
    var loaded: [(MediaDescriptor, [UInt8])] = []
    if let data = FileManager.default.contents(atPath: path), let root = try? JSONParser.parse(Array(data)).objectValue,
        case .array(let positive)? = root["positive"]
    {
        for vector in positive.compactMap(\.objectValue) {
            guard let json = vector["descriptor"]?.objectValue, let descriptor = try? MediaDescriptor(json: json),
                let text = vector["object"]?.stringValue, let object = Base64URL.decode(text)
            else { continue }
            loaded.append((descriptor, object))
        }
    }
    precondition(!loaded.isEmpty, "no vectors: run from the package root or set PUSHSEAL_FUZZ_MEDIA_VECTORS")
    return loaded
}()

/// One fuzz input: a descriptor choice, then the object.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMedia(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let vector = vectors[Int(bytes[0]) % vectors.count]
    let object = Array(bytes.dropFirst())
    let opener = MediaStreamOpener(descriptor: vector.descriptor)
    var media: [UInt8] = []
    do {
        var offset = 0
        var piece = Int(bytes[0]) * 97 % 9_000 + 1
        while offset < object.count {
            let end = min(object.count, offset + piece)
            try object[offset..<end].withUnsafeBytes { try opener.append($0) { media += $0 } }
            offset = end
            piece = piece * 3 % 70_000 + 1
        }
        try opener.finish()
        precondition(object == vector.object, "an object that is not the vector's opened")
        precondition(media.count == vector.descriptor.length, "the media has the wrong length")
    } catch is MediaFailure {
    } catch {
        preconditionFailure("unexpected error \(error)")
    }
    return 0
}
